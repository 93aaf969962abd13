/**
 * Paths and globs a repository writes, trimmed in linear time: `.replace(/\/+$/, '')` is quadratic
 * in V8 on a long run of `/` that does not end the text, and a workspace glob is capped before
 * anything reads it.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRepoGraph, fencePath, listRepoFiles, normalisePattern, readWorkspace } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

const repos: TempRepo[] = [];
afterAll(async () => {
  for (const repo of repos) await repo.dispose();
});

/** Text over the characters the trimming cares about, in runs long and short. */
const slashyTextArb = fc.array(fc.constantFrom('/', '//', '.', './', ' ', '\t', 'a'), { maxLength: 12 }).map((parts) => parts.join(''));

describe('trimming repository paths', () => {
  it('should always normalise a pattern as the expressions did: trimmed, no leading ./, no trailing /', () => {
    fc.assert(
      fc.property(slashyTextArb, (text) => {
        expect(normalisePattern(text)).toBe(text.trim().replace(/^\.\/+/, '').replace(/\/+$/, ''));
      }),
    );
  });

  it('should always read a fence lane as the expressions did', () => {
    const reference = (label: string) => {
      let path = label.replace(/\/+$/, '');
      while (path.startsWith('./')) path = path.slice(2);
      return path === '.' ? '' : path;
    };
    fc.assert(
      fc.property(slashyTextArb, (label) => {
        expect(fencePath(label)).toBe(reference(label));
      }),
    );
  });

  it('normalises a million slashes before an x', () => {
    expect(normalisePattern(`./${'/'.repeat(1_000_000)}x${'/'.repeat(1_000_000)}`)).toBe('x');
  });
});

describe('workspace globs', () => {
  it('ignores a glob past 4,096 characters, names its file, and reads the others', async () => {
    const long = `${'/'.repeat(70_000)}x`;
    const repo = await TempRepo.create({
      'pnpm-workspace.yaml': `packages:\n  - "${long}"\n  - "packages/*/"\n`,
      'package.json': JSON.stringify({ name: 'root', workspaces: [long, long, 'libs/*'] }),
      'packages/p/package.json': '{"name":"p"}',
      'packages/p/index.ts': 'export const p = 1;\n',
      'libs/l/package.json': '{"name":"l"}',
      'libs/l/index.ts': "import { p } from 'p';\nexport const l = p;\n",
    });
    repos.push(repo);
    const { files } = await listRepoFiles(repo.root);
    const workspace = await readWorkspace(repo.root, files);
    expect(workspace.members.map((m) => m.name)).toEqual(['root', 'l', 'p']);
    expect(workspace.problems).toEqual([
      { path: 'pnpm-workspace.yaml', message: 'read in part: 1 workspace glob(s) longer than 4,096 characters ignored', readInPart: true },
      { path: 'package.json', message: 'read in part: 2 workspace glob(s) longer than 4,096 characters ignored', readInPart: true },
    ]);
    const graph = await buildRepoGraph(repo.root, { cache: false });
    expect(graph.hasEdge('libs/l/index.ts', 'packages/p/index.ts')).toBe(true);
    expect(graph.getAttribute('skipped')).toEqual([
      { file: 'package.json', reason: 'read in part: 2 workspace glob(s) longer than 4,096 characters ignored' },
      { file: 'pnpm-workspace.yaml', reason: 'read in part: 1 workspace glob(s) longer than 4,096 characters ignored' },
    ]);
  });

  it('honours the first 4,096 of 150,000 workspace globs, and names the file as read in part, with every other reason', async () => {
    // Each glob is compiled and matched against every folder with a manifest: 150,000 took 7 s and 700 MB.
    const globs = [...Array.from({ length: 4095 }, (_, i) => `p${i.toString(36)}x*/**`), 'libs/*', 'late/*', ...Array.from({ length: 145_903 }, (_, i) => `q${i.toString(36)}*/**`)];
    const repo = await TempRepo.create({
      // Its exports are read in part too: one key with 17 targets.
      'package.json': JSON.stringify({ name: 'root', private: true, workspaces: globs, exports: { './*': Array.from({ length: 17 }, (_, i) => `./t${i}/*.ts`) } }),
      'libs/l/package.json': '{"name":"l"}',
      'libs/l/index.ts': "import { m } from 'm';\nimport { r } from 'root/r';\nexport const l = m + r;\n",
      't0/r.ts': 'export const r = 1;\n',
      'late/m/package.json': '{"name":"m"}',
      'late/m/index.ts': 'export const m = 1;\n',
    });
    repos.push(repo);
    const { files } = await listRepoFiles(repo.root);
    const workspace = await readWorkspace(repo.root, files);
    expect(workspace.members.map((m) => m.name)).toEqual(['root', 'l']);
    const reason = 'read in part: its workspaces hold 150,000 globs, past the first 4,096 ignored';
    expect(workspace.problems).toEqual([{ path: 'package.json', message: reason, readInPart: true }]);
    const graph = await buildRepoGraph(repo.root, { cache: false });
    expect(graph.hasEdge('libs/l/index.ts', 't0/r.ts')).toBe(true);
    const crowded = 'read in part: 1 exports key(s) with more than 16 targets (fallbacks and conditions together), past the first 16 ignored';
    expect(graph.getAttribute('skipped')).toEqual([{ file: 'package.json', reason: `${reason}; ${crowded}` }]);
  });

  it('bounds the work of matching many long globs against deep folders, and names the file as read in part (red team G4)', async () => {
    const deep = Array.from({ length: 500 }, () => 'aaaaaaa').join('/');
    const glob = `${'**/*a*/'.repeat(146)}b`;
    const files: Record<string, string> = { 'pnpm-workspace.yaml': `packages:\n${Array.from({ length: 200 }, () => `  - '${glob}'`).join('\n')}\n  - 'libs/*'\n`, 'package.json': '{"name":"root","private":true}' };
    for (let i = 0; i < 30; i++) files[`${deep}/c${i}/package.json`] = `{"name":"p${i}"}`;
    const repo = await TempRepo.create(files);
    repos.push(repo);
    const { files: listed } = await listRepoFiles(repo.root);
    const workspace = await readWorkspace(repo.root, listed);
    expect(workspace.problems).toEqual([expect.objectContaining({ path: 'pnpm-workspace.yaml', readInPart: true, message: expect.stringMatching(/^read in part: matching its 201 workspace glob\(s\) against the repository's folders takes more than waves does for one read/) })]);
  });
});
