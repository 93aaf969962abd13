/**
 * What the harvest asks git: every path that differs from a base commit — committed, staged,
 * unstaged, untracked; renames; ignored files and waves' own state left out — and the snapshot
 * of uncommitted files taken before agents start in a shared work tree.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changesSince, dirtySnapshot, git, hashFiles, headCommit } from '@waves/dispatch';
import { TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo | null = null;
afterEach(async () => {
  await repo?.dispose();
  repo = null;
});

const commit = (r: TempRepo, message: string) => r.git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', message);

describe('changesSince', () => {
  it('lists committed, staged, unstaged and untracked changes, renames included, ignored files and .waves left out', async () => {
    repo = await TempRepo.create({
      '.gitignore': 'dist/\n',
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 1;\n',
      'src/moved.ts': 'export const moved = "a file long enough to be recognised when it moves";\n',
      'src/gone.ts': 'export const gone = 1;\n',
    });
    const base = await headCommit(repo.root);
    // Committed by the agent.
    await repo.write({ 'src/a.ts': 'export const a = 2;\n' });
    await repo.git('add', 'src/a.ts');
    await commit(repo, 'agent');
    // Staged, unstaged, untracked, deleted, renamed.
    await repo.write({ 'src/staged.ts': 'x\n' });
    await repo.git('add', 'src/staged.ts');
    await repo.write({ 'src/b.ts': 'export const b = 2;\n', 'src/new/untracked.ts': 'y\n', 'dist/out.js': 'ignored\n', '.waves/leases.jsonl': '{}\n' });
    await repo.remove('src/gone.ts');
    await repo.git('mv', 'src/moved.ts', 'src/renamed.ts');
    const changes = await changesSince(repo.root, base);
    expect(changes).toEqual([
      { path: 'src/a.ts', change: 'modified' },
      { path: 'src/b.ts', change: 'modified' },
      { path: 'src/gone.ts', change: 'deleted' },
      { path: 'src/new/untracked.ts', change: 'added' },
      { path: 'src/renamed.ts', change: 'renamed', from: 'src/moved.ts' },
      { path: 'src/staged.ts', change: 'added' },
    ]);
    // From the agent's own commit on, its committed change is no longer a difference.
    expect((await changesSince(repo.root, await headCommit(repo.root))).map((c) => c.path)).not.toContain('src/a.ts');
  });

  it("hides untracked files by the base's .gitignore files exactly as git does, nested ones and their precedence included", async () => {
    repo = await TempRepo.create({
      '.gitignore': '*.log\n!keep.log\n/build\ncache/\n# a comment\n\\#hash\nspaced.txt   \n',
      'pkg/.gitignore': 'gen\nsub/x.txt\n/only-here.ts\n!important.log\n**/deep\na/**/b\n',
      'pkg/[odd]/.gitignore': '*.tmp\n',
      'pkg/src/keep.ts': 'k\n',
    });
    const base = await headCommit(repo.root);
    const files = [
      'x.log', 'keep.log', 'build/out.js', 'pkg/build/out.js', 'cache/c', 'pkg/cache/c', '#hash', 'spaced.txt', 'pkg/gen', 'pkg/src/gen/g.ts',
      'pkg/sub/x.txt', 'pkg/other/sub/x.txt', 'pkg/only-here.ts', 'pkg/src/only-here.ts', 'pkg/important.log', 'pkg/src/important.log',
      'pkg/q/deep/d.ts', 'pkg/a/b', 'pkg/a/m/n/b', 'a/b', 'pkg/[odd]/t.tmp', 'pkg/[odd]/t.ts', 'gen', 'src/new.ts',
    ];
    await repo.write(Object.fromEntries(files.map((f) => [f, 'x\n'])));
    const gits = (await repo.git('ls-files', '--others', '--exclude-per-directory=.gitignore', '-z')).stdout.split('\0').filter(Boolean).sort();
    expect(gits.length).toBeGreaterThan(5);
    expect((await changesSince(repo.root, base)).map((c) => c.path)).toEqual(gits);
  });

  it('never lets a .gitignore the run wrote hide what it wrote: the rules are the base\'s', async () => {
    repo = await TempRepo.create({ '.gitignore': 'dist/\n', 'packages/api/src/a.ts': 'a\n', 'packages/web/.gitignore': 'tmp/\n' });
    const base = await headCommit(repo.root);
    // A .gitignore that ignores itself and the file beside it; a tracked one widened to hide a folder.
    await repo.write({
      'packages/api/src/.gitignore': '.gitignore\nevil.ts\n',
      'packages/api/src/evil.ts': 'export const pwn = 1;\n',
      'packages/web/.gitignore': 'tmp/\nsrc/\n',
      'packages/web/src/hidden.ts': 'h\n',
      'dist/out.js': 'still ignored\n',
    });
    expect((await repo.git('status', '--porcelain')).stdout).not.toContain('evil.ts');
    expect((await changesSince(repo.root, base)).map((c) => c.path)).toEqual(['packages/api/src/.gitignore', 'packages/api/src/evil.ts', 'packages/web/.gitignore', 'packages/web/src/hidden.ts']);
  });

  it('works in a repository without commits and with unusual file names', async () => {
    repo = await TempRepo.create({}, { git: false });
    await repo.git('init', '-q');
    mkdirSync(path.join(repo.root, 'dir with space'));
    writeFileSync(path.join(repo.root, 'dir with space', 'ünïcode "quoted".ts'), 'z\n');
    expect(await headCommit(repo.root)).toBeNull();
    expect(await changesSince(repo.root, null)).toEqual([{ path: 'dir with space/ünïcode "quoted".ts', change: 'added' }]);
  });

  it('snapshots what is uncommitted, with the blob id of each file', async () => {
    repo = await TempRepo.create({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    await repo.write({ 'a.txt': 'changed\n', 'c.txt': 'new\n' });
    await repo.remove('b.txt');
    const snapshot = await dirtySnapshot(repo.root);
    const blob = (await repo.git('hash-object', 'a.txt')).stdout.trim();
    expect(snapshot).toEqual([
      { path: 'a.txt', hash: blob },
      { path: 'b.txt', hash: null },
      { path: 'c.txt', hash: expect.stringMatching(/^[0-9a-f]{40,64}$/) },
    ]);
    // A name with a line break is hashed too (not dropped, not mixed up with the others).
    await repo.write({ 'line\nbreak.txt': 'changed\n' });
    const odd = await dirtySnapshot(repo.root);
    expect(odd.find((f) => f.path === 'line\nbreak.txt')?.hash).toBe(blob);
    expect(odd.find((f) => f.path === 'a.txt')?.hash).toBe(blob);
  });

  it('sees untracked files that only .git/info/exclude or core.excludesFile hide, and hides what the tree\'s own .gitignore does', async () => {
    repo = await TempRepo.create({ '.gitignore': 'dist/\n' });
    const excludes = path.join(repo.root, '..', `${path.basename(repo.root)}-excludes`);
    writeFileSync(excludes, 'personal.txt\n');
    await repo.git('config', 'core.excludesFile', excludes);
    writeFileSync(path.join(repo.root, '.git', 'info', 'exclude'), 'scratch/\n');
    await repo.write({ 'scratch/hidden.txt': 'h\n', 'personal.txt': 'p\n', 'dist/out.js': 'o\n' });
    expect((await changesSince(repo.root, await headCommit(repo.root))).map((c) => c.path)).toEqual(['personal.txt', 'scratch/hidden.txt']);
    rmSync(excludes, { force: true });
  });

  it('never reads through a link when it hashes: a link is its target text, a FIFO is not there', async () => {
    repo = await TempRepo.create({ 'a.txt': 'a\n' });
    symlinkSync('/dev/zero', path.join(repo.root, 'zero'));
    execFileSync('mkfifo', [path.join(repo.root, 'pipe')]);
    expect(await hashFiles(repo.root, ['zero', 'pipe', 'a.txt'])).toEqual([
      { path: 'zero', hash: 'link:/dev/zero' },
      { path: 'pipe', hash: null },
      { path: 'a.txt', hash: expect.stringMatching(/^[0-9a-f]{40,64}$/) },
    ]);
  });

  it('takes every path literally: a file named like a pattern adds only itself', async () => {
    repo = await TempRepo.create({ 'keep.md': 'k\n' });
    await repo.write({ 'a.ts': 'a\n', 'b.ts': 'b\n', ':(glob)*': 'magic\n' });
    // Read as a pathspec, `:(glob)*` would add every file.
    await git(repo.root, ['add', '--', ':(glob)*']);
    const staged = (await repo.git('diff', '--cached', '--name-only')).stdout.split('\n').filter(Boolean).sort();
    expect(staged).toEqual([':(glob)*']);
  });
});

describe('git that does not start', () => {
  it('fails with a GitError saying E2BIG when its arguments are too long, not a TypeError', async () => {
    repo = await TempRepo.create({ 'a.txt': 'a\n' });
    // One argument over Linux's 128 KB per argument (red team 2, #11: a title of 300,000 characters).
    await expect(git(repo.root, ['commit', '-m', 'T'.repeat(300_000)])).rejects.toThrow(/^git commit in .* failed: E2BIG: its arguments are longer than the system allows$/);
  });
});
