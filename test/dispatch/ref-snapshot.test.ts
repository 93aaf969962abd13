import { describe, expect, it } from 'vitest';
import { describeRefChanges, refChanges, type RefSnapshot } from '@waves/dispatch';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

const snapshot = (over: Partial<RefSnapshot> = {}): RefSnapshot => ({
  root: { branch: 'refs/heads/main', commit: A },
  worktree: null,
  refs: { 'refs/heads/main': A, 'refs/tags/v1': A },
  ...over,
});
/** Only B is waves' own commit on top of A. */
const ownAdvance = async (from: string, to: string) => from === A && to === B;

describe('refChanges', () => {
  it('reports every watched ref created, moved or deleted', async () => {
    const after = snapshot({ refs: { 'refs/heads/main': A, 'refs/tags/v1': C, [`refs/replace/${A}`]: C, 'refs/heads/other': B } });
    const changes = await refChanges(snapshot({ refs: { 'refs/heads/main': A, 'refs/tags/v1': A, 'refs/notes/commits': A } }), after, ownAdvance);
    expect(changes.map((c) => [c.what, c.from, c.to])).toEqual([
      ['refs/heads/other', null, B],
      ['refs/notes/commits', A, null],
      [`refs/replace/${A}`, null, C],
      ['refs/tags/v1', A, C],
    ]);
    expect(describeRefChanges(changes)).toContain(`refs/tags/v1 moved ${A.slice(0, 12)} → ${C.slice(0, 12)}`);
  });

  it('lets the shared work tree\'s branch advance by waves\' own commits only', async () => {
    const own = snapshot({ root: { branch: 'refs/heads/main', commit: B }, refs: { 'refs/heads/main': B, 'refs/tags/v1': A } });
    expect(await refChanges(snapshot(), own, ownAdvance)).toEqual([]);
    const other = snapshot({ root: { branch: 'refs/heads/main', commit: C }, refs: { 'refs/heads/main': C, 'refs/tags/v1': A } });
    expect((await refChanges(snapshot(), other, ownAdvance)).map((c) => c.what)).toEqual(['refs/heads/main']);
  });

  it('never lets the root\'s branch move under a run in a worktree, nor the worktree leave its branch', async () => {
    const before = snapshot({ worktree: { branch: 'refs/heads/waves/issue-1', commit: A } });
    const after = snapshot({ worktree: { branch: null, commit: C }, refs: { 'refs/heads/main': B, 'refs/tags/v1': A } });
    const changes = await refChanges(before, after, ownAdvance);
    expect(changes.map((c) => c.what)).toEqual(['refs/heads/main', "its worktree's HEAD"]);
    expect(describeRefChanges(changes)).toContain(`its worktree's HEAD is detached at ${C.slice(0, 12)}, not refs/heads/waves/issue-1`);
  });

  it('says when the shared work tree was switched to another branch', async () => {
    const after = snapshot({ root: { branch: 'refs/heads/agent', commit: A }, refs: { 'refs/heads/main': A, 'refs/tags/v1': A, 'refs/heads/agent': A } });
    expect(describeRefChanges(await refChanges(snapshot(), after, ownAdvance))).toContain("the work tree's HEAD is on refs/heads/agent, not refs/heads/main");
  });
});
