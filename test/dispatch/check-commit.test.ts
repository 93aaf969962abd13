/**
 * The check of a commit harvest made: the paths it holds, as `git diff-tree` says, against the
 * paths meant; a commit that holds more (or less) is undone, the branch back where it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkCommit, committedPaths, headCommit, undoCommit } from '@waves/dispatch';
import { TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo | null = null;
afterEach(async () => {
  await repo?.dispose();
  repo = null;
});

const commit = (r: TempRepo, message: string) => r.git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', message);

describe('checkCommit', () => {
  it('finds what a commit holds beyond what was meant, and what it lacks', async () => {
    repo = await TempRepo.create({ 'a.ts': 'a\n', 'package.json': '{}\n' });
    const previous = await headCommit(repo.root);
    // As a hook would: the meant file, plus a manifest and a new file nobody asked for.
    await repo.write({ 'a.ts': 'a2\n', 'package.json': '{"x":1}\n', 'sneaky.txt': 's\n' });
    await repo.git('add', '-A');
    await commit(repo, 'work');
    const sha = (await headCommit(repo.root))!;
    expect(await committedPaths(repo.root, sha)).toEqual(['a.ts', 'package.json', 'sneaky.txt']);
    expect(await checkCommit(repo.root, sha, ['a.ts'])).toEqual({ ok: false, extra: ['package.json', 'sneaky.txt'], missing: [] });
    expect(await checkCommit(repo.root, sha, ['a.ts', 'b.ts', 'package.json', 'sneaky.txt'])).toEqual({ ok: false, extra: [], missing: ['b.ts'] });
    expect(await checkCommit(repo.root, sha, ['sneaky.txt', 'a.ts', 'package.json'])).toEqual({ ok: true });

    // Undone: the branch is back, the work tree untouched, the index keeps what the commit held.
    await undoCommit(repo.root, previous);
    expect(await headCommit(repo.root)).toBe(previous);
    expect((await repo.git('diff', '--cached', '--name-only')).stdout.split('\n').filter(Boolean).sort()).toEqual(['a.ts', 'package.json', 'sneaky.txt']);
  });

  it('reads a root commit whole, and undoes it by leaving the branch without commits', async () => {
    repo = await TempRepo.create({ 'a.ts': 'a\n', 'b.ts': 'b\n' });
    const sha = (await headCommit(repo.root))!;
    expect(await checkCommit(repo.root, sha, ['a.ts'])).toEqual({ ok: false, extra: ['b.ts'], missing: [] });
    await undoCommit(repo.root, null);
    expect(await headCommit(repo.root)).toBeNull();
  });
});
