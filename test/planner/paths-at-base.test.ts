/**
 * The true files of a backtest's commit judged at the base: followed back through the renames of
 * the commits before it, and left out when the base did not have them.
 */
import { describe, expect, it } from 'vitest';
import { pathsAtBase, type HistoryCommit } from '@waves/planner';

const commit = (sha: string, files: HistoryCommit['files'], renames?: HistoryCommit['renames']): HistoryCommit => ({ sha, parents: ['p'], subject: sha, files, ...(renames ? { renames } : {}) });
const BASE = new Set(['src/a.ts', 'src/c.ts', 'src/e.ts']);

describe('pathsAtBase', () => {
  const commits = [
    // c1 renames a → b (with --no-renames: a deleted, b created), and c → d.
    commit('c1', [{ path: 'src/a.ts', change: 'delete' }, { path: 'src/b.ts', change: 'create' }, { path: 'src/c.ts', change: 'delete' }, { path: 'src/d.ts', change: 'create' }], [{ from: 'src/a.ts', to: 'src/b.ts' }, { from: 'src/c.ts', to: 'src/d.ts' }]),
    // c2 deletes d; c3 adds a new d; c4 renames b back to a… then moves it again.
    commit('c2', [{ path: 'src/d.ts', change: 'delete' }]),
    commit('c3', [{ path: 'src/d.ts', change: 'create' }, { path: 'src/new.ts', change: 'create' }]),
    commit('c4', [{ path: 'src/b.ts', change: 'delete' }, { path: 'src/f.ts', change: 'create' }], [{ from: 'src/b.ts', to: 'src/f.ts' }]),
    commit('c5', [{ path: 'src/f.ts', change: 'edit' }, { path: 'src/d.ts', change: 'edit' }, { path: 'src/new.ts', change: 'edit' }, { path: 'src/e.ts', change: 'edit' }]),
  ];
  const atBase = pathsAtBase(commits, (p) => BASE.has(p));

  it('follows a chain of renames back to the base, and keeps files the range did not touch', () => {
    expect(atBase('c5', ['src/f.ts', 'src/e.ts'])).toEqual(['src/a.ts', 'src/e.ts']);
  });

  it('leaves out a file created within the range, also one re-created at a path that a renamed file once had', () => {
    expect(atBase('c5', ['src/new.ts'])).toEqual([]);
    expect(atBase('c5', ['src/d.ts'])).toEqual([]);
    // Before c3 re-created it, d was c's new name.
    expect(atBase('c2', ['src/d.ts'])).toEqual(['src/c.ts']);
  });

  it('judges the first commit of the range by its own paths', () => {
    expect(atBase('c1', ['src/a.ts', 'src/c.ts', 'src/zzz.ts'])).toEqual(['src/a.ts', 'src/c.ts']);
  });
});
