/**
 * The companions of an inferred fence: files that past commits changing the fence also changed,
 * in a good share of them (a rule and the shared suppression list), added to the fence so that
 * two issues that would each touch one are not put side by side.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fenceCompanions } from '@waves/planner';

/** An index of `files` and past `commits` (each a list of paths), newest first as the index keeps them. */
function indexOf(files: string[], commits: string[][]) {
  const fileId = new Map(files.map((f, i) => [f, i]));
  const commitFiles = commits.map((c) => c.map((p) => fileId.get(p)!));
  const commitsOf: number[][] = files.map(() => []);
  commitFiles.forEach((ids, c) => ids.forEach((id) => commitsOf[id]!.push(c)));
  const filesIn = new Map<string, number[]>();
  files.forEach((f, id) => {
    const dir = f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '';
    filesIn.set(dir, [...(filesIn.get(dir) ?? []), id]);
  });
  return { files, fileId, filesIn, commitsOf, commitFiles };
}

const leaf = (path: string, kind: 'file' | 'dir' = 'file') => ({ path, kind, evidence: { source: 'title' as const, via: 'inferred-words', text: path, line: 0 } });

describe('fenceCompanions', () => {
  const files = ['src/rules/a.ts', 'src/rules/b.ts', 'src/util/index.ts', 'suppressions.json', 'src/other.ts'];

  it('adds the file most past commits of the fence also changed, and not one they rarely did', () => {
    const commits = [
      ['src/rules/a.ts', 'suppressions.json'],
      ['src/rules/a.ts', 'suppressions.json'],
      ['src/rules/a.ts', 'suppressions.json', 'src/other.ts'],
      ['src/rules/a.ts'],
      ['src/rules/a.ts', 'src/util/index.ts'],
      ['src/other.ts', 'src/util/index.ts'],
      ['src/other.ts', 'src/util/index.ts'],
    ];
    const companions = fenceCompanions(indexOf(files, commits), [leaf('src/rules/a.ts')]);
    expect(companions.map((c) => c.path)).toEqual(['suppressions.json']);
    expect(companions[0]).toMatchObject({ kind: 'file', evidence: { via: 'inferred-cochange', text: 'suppressions.json (changed with the fence in 3 of its 5 past commits)' } });
  });

  it('never proposes a control file (a manifest, an agent settings file, CI), however often it changed with the fence', () => {
    const all = [...files, 'package.json', '.claude/settings.json', '.github/workflows/ci.yml', 'vite.config.ts'];
    const commits = Array.from({ length: 5 }, () => ['src/rules/a.ts', 'package.json', '.claude/settings.json', '.github/workflows/ci.yml', 'vite.config.ts', 'suppressions.json']);
    expect(fenceCompanions(indexOf(all, commits), [leaf('src/rules/a.ts')]).map((c) => c.path)).toEqual(['suppressions.json']);
  });

  it('reads a fenced directory as its files, and never proposes what the fence holds already', () => {
    const commits = [
      ['src/rules/a.ts', 'src/rules/b.ts', 'src/util/index.ts'],
      ['src/rules/b.ts', 'src/util/index.ts'],
      ['src/rules/a.ts', 'src/util/index.ts'],
    ];
    expect(fenceCompanions(indexOf(files, commits), [leaf('src/rules', 'dir')]).map((c) => c.path)).toEqual(['src/util/index.ts']);
    expect(fenceCompanions(indexOf(files, commits), [leaf('src/rules', 'dir'), leaf('src/util', 'dir')])).toEqual([]);
  });

  it('takes no evidence from sweeps (a commit of more than 20 files) nor from fewer than 3 commits', () => {
    const many = Array.from({ length: 30 }, (_, i) => `gen/f${i}.ts`);
    const all = [...files, ...many];
    const sweep = ['src/rules/a.ts', 'suppressions.json', ...many];
    expect(fenceCompanions(indexOf(all, [sweep, sweep, sweep, sweep]), [leaf('src/rules/a.ts')])).toEqual([]);
    expect(fenceCompanions(indexOf(files, [['src/rules/a.ts', 'suppressions.json'], ['src/rules/a.ts', 'suppressions.json']]), [leaf('src/rules/a.ts')])).toEqual([]);
  });

  it('always gives at most 3 files outside the fence, each changed with it in 3 or more past commits, the same for the same history', () => {
    const pool = ['a/x.ts', 'a/y.ts', 'b/z.ts', 'c.json', 'd/e.ts', 'd/f.ts'];
    fc.assert(
      fc.property(fc.array(fc.subarray(pool, { minLength: 1 }), { maxLength: 30 }), fc.subarray(pool, { minLength: 1, maxLength: 2 }), (commits, fenced) => {
        const index = indexOf(pool, commits);
        const leaves = fenced.map((p) => leaf(p));
        const out = fenceCompanions(index, leaves);
        expect(out.length).toBeLessThanOrEqual(3);
        for (const c of out) {
          expect(fenced).not.toContain(c.path);
          expect(commits.filter((k) => k.includes(c.path) && k.some((p) => fenced.includes(p))).length).toBeGreaterThanOrEqual(3);
        }
        expect(fenceCompanions(index, leaves)).toEqual(out);
      }),
    );
  });
});
