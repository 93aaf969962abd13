/**
 * Issue text longer than anything GitHub allows (red team 2, #11): a title of 300,000 characters
 * made `git commit -m` fail with E2BIG at harvest — an internal error, the other runs never
 * witnessed, the file left staged. Now the title and the body are cut at intake (GitHub's 256 and
 * 65,536 characters) with a warning naming the issue, the commit subject is at most 200
 * characters, and the message goes to git on standard input.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitMessage, commitSubject, MAX_SUBJECT_CHARS, type RunRecord } from '@waves/dispatch';
import { cutText } from '@waves/planner';
import { byIssue, hostileSetup, type Hostile } from '../helpers/hostile-setup.js';

let t: Hostile | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

function record(title: string): RunRecord {
  return {
    v: 1, id: 'resolve-7-x', issue: { number: 7, title }, wave: 1, agent: 'fake', argv: ['x'], cwd: '/tmp', model: null, tier: 'default',
    leaseIds: [], leaseTtlMs: 1000, journal: '/tmp/j', log: '/tmp/l', pidFile: '/tmp/p', worktree: null, timeoutMs: null, supervisorPid: null, pid: null,
    status: 'succeeded', exitCode: 0, signal: null, reason: null, startedAt: '2026-11-30T00:00:00.000Z', endedAt: null,
    scope: { fence: [], lanes: ['packages/core'], serial: null, labels: [], leaves: [] },
  };
}

describe('issue text past GitHub\'s limits', () => {
  it('cuts a commit subject to 200 characters on a character boundary, with an ellipsis', () => {
    const subject = commitSubject(record(`Fix cart ${'T'.repeat(300_000)}`), null);
    expect([...subject].length).toBeLessThanOrEqual(MAX_SUBJECT_CHARS);
    expect(subject).toMatch(/^feat\(core\): Fix cart T+… \(#7\)$/);
    // Emoji and combining marks are never split.
    const emoji = commitSubject(record('👍🏽'.repeat(300)), null);
    expect(emoji).toMatch(/^feat\(core\): (?:👍🏽)+… \(#7\)$/);
    const accents = cutText('e\u0301'.repeat(50), 9);
    expect(accents).toBe(`${'e\u0301'.repeat(4)}…`);
    expect(cutText('🇫🇷'.repeat(10), 6)).toBe('🇫🇷🇫🇷…');
    expect(cutText('👩‍👩‍👧'.repeat(10), 7)).toBe('👩‍👩‍👧…');
    // Fast on a megabyte: the cut never looks past twice the limit.
    expect(cutText('ü‮𝒳 — '.repeat(200_000), 65_536).endsWith('…')).toBe(true);
    expect(commitMessage(record('Short'), 'fix')).toBe('fix(core): Short (#7)\n\nWaves-Run: resolve-7-x\n');
  });

  it('dispatches and commits an issue whose title is 300,000 characters, with a warning naming it, and witnesses the others', async () => {
    t = await hostileSetup({
      script: `
case "$1" in
  101) echo "// work" >> packages/payments/src/stripe.ts ;;
  102) echo "// work" >> packages/core/src/discounts.ts ;;
  105) echo "// work" >> packages/core/src/cart.ts ;;
esac
`,
    });
    const backlog = JSON.parse(readFileSync(path.join(t.root, 'backlog.json'), 'utf8')) as { number: number; title: string; body: string }[];
    backlog.find((i) => i.number === 101)!.title = `Fix cart ${'T'.repeat(300_000)}`;
    backlog.find((i) => i.number === 105)!.body += `\n${'B'.repeat(100_000)}`;
    writeFileSync(path.join(t.root, 'backlog.json'), JSON.stringify(backlog));
    await t.git(t.root, 'commit', '-qam', 'long issues');

    const dispatched = await t.dispatch('--worktree');
    expect(dispatched.exitCode, dispatched.stderr).toBe(0);
    expect(dispatched.stderr).toMatch(/^waves: issues file backlog\.json: issue #101: title to 256 characters cut \(GitHub's limits\)$/m);
    expect(dispatched.stderr).toMatch(/^waves: issues file backlog\.json: issue #105: body to 65536 characters cut \(GitHub's limits\)$/m);

    const { exitCode, report, stderr } = await t.harvest('--commit');
    expect(stderr).not.toMatch(/internal error|E2BIG/);
    expect(exitCode, JSON.stringify(report.runs.map((r) => [r.issue.number, r.result, r.why, r.witness?.status, r.witness?.reasons]))).toBe(0);
    for (const n of [101, 102, 105]) expect(byIssue(report, n).witness!.commit, `#${n}`).not.toBeNull();
    const subject = (await t.git(t.worktree(101), 'log', '-1', '--format=%s')).trim();
    expect([...subject].length).toBeLessThanOrEqual(200);
    expect(subject).toMatch(/^(?:feat|fix)\(\w+\): Fix cart T+… \(#101\)$/);
    expect((await t.git(t.worktree(101), 'log', '-1', '--format=%(trailers:key=Waves-Run,valueonly)')).trim()).toMatch(/^resolve-101-/);
    expect((await t.git(t.worktree(101), 'status', '--porcelain')).trim()).toBe('');
  }, 120_000);

  it('says why an agent whose prompt is over what the system allows in one argument did not start (E2BIG), as the run\'s reason', async () => {
    t = await hostileSetup({ fake: {} });
    const backlog = JSON.parse(readFileSync(path.join(t.root, 'backlog.json'), 'utf8')) as { number: number; title: string; body: string }[];
    // 65,536 characters (GitHub's limit, kept at intake) of three bytes each: 192 KB in the prompt, one argument.
    backlog.find((i) => i.number === 102)!.body = '語'.repeat(65_536);
    writeFileSync(path.join(t.root, 'backlog.json'), JSON.stringify(backlog));
    await t.git(t.root, 'commit', '-qam', 'a long body');
    const dispatched = await t.dispatch('--worktree');
    expect(dispatched.exitCode).toBe(1);
    expect(dispatched.stderr).not.toMatch(/internal error/);
    expect(dispatched.stdout + dispatched.stderr).toMatch(/#102 failed: spawn E2BIG: its command line is longer than the system allows \(at most 128 KB in one argument/);
  }, 120_000);
});
