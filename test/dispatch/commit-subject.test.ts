/**
 * The harvest's commit subject, `<type>(<lane>): <title> (#N)`, from untrusted issue text: one
 * line whatever the title holds, the type from labels unless given, the lane's last segment.
 */
import { describe, expect, it } from 'vitest';
import { commitSubject, type RunRecord } from '@waves/dispatch';

function record(title: string, labels: string[], lanes: string[]): RunRecord {
  return {
    v: 1, id: 'resolve-7-x', issue: { number: 7, title }, wave: 1, agent: 'fake', argv: ['x'], cwd: '/tmp', model: null, tier: 'default',
    leaseIds: [], leaseTtlMs: 1000, journal: '/tmp/j', log: '/tmp/l', pidFile: '/tmp/p', worktree: null, timeoutMs: null, supervisorPid: null, pid: null,
    status: 'succeeded', exitCode: 0, signal: null, reason: null, startedAt: '2026-11-30T00:00:00.000Z', endedAt: null,
    scope: { fence: [], lanes, serial: null, labels, leaves: [] },
  };
}

describe('commitSubject', () => {
  it('types a bug label as fix and anything else as feat, unless a type is given', () => {
    expect(commitSubject(record('Totals wrong', ['bug', 'P1'], ['packages/core']), null)).toBe('fix(core): Totals wrong (#7)');
    expect(commitSubject(record('Totals wrong', ['type: Bug'], ['core']), null)).toBe('fix(core): Totals wrong (#7)');
    expect(commitSubject(record('Totals wrong', ['kind/bug'], []), null)).toBe('fix: Totals wrong (#7)');
    expect(commitSubject(record('Add refunds', ['enhancement', 'debug-tools'], ['payments']), null)).toBe('feat(payments): Add refunds (#7)');
    expect(commitSubject(record('Bump deps', ['bug'], ['packages/web/']), 'chore')).toBe('chore(web): Bump deps (#7)');
  });

  it('keeps hostile titles and lanes on one plain line', () => {
    const subject = commitSubject(record('Fix\nSigned-off-by: mallory\r\n\u001b[31mred\u202e txt', [], ['we b;$(rm -rf)']), null);
    expect(subject).toBe('feat(we-b-rm--rf): Fix Signed-off-by: mallory [31mred txt (#7)');
    expect(subject).not.toMatch(/[\n\r\u001b\u202e]/);
  });
});
