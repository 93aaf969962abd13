/**
 * A plan with inferred fences verifies against the same scopes: an inferred fence on a serial path
 * is a serial wave of its own, not an internal error of the whole plan (red-team round 7, F2).
 */
import { describe, expect, it } from 'vitest';
import { isControlFile, planWaves, verifyPlan, type BacklogIssue, type PlanInput } from '@waves/planner';
import { makeRepo } from '../helpers/repo.js';

const issue = (number: number, title: string, body: string): BacklogIssue => ({ number, title, body, labels: [], state: 'open', createdAt: null, url: null, sortOrder: number });
const repo = makeRepo({ files: ['tsconfig.json', 'package.json', 'src/a.ts', 'src/b.ts', 'src/c.ts'] });

describe('verifying plans with inferred fences', () => {
  it('puts an issue inferred onto a serial path in a serial wave, and the plan verifies', () => {
    const input: PlanInput = {
      repo,
      now: 0,
      issues: [
        issue(7, 'schema breaks', '    at x (/app/src/c.ts:2:2)'),
        issue(8, 'Fix `src/a.ts`', 'and at y (/app/src/c.ts:3:1)'),
        issue(9, 'Fix `src/b.ts`', ''),
      ],
      options: { inference: 'plan', inferenceThreshold: 0.5, serial: ['src/c.ts'], requireAcceptanceCriteria: false, maxWaves: 10 },
    };
    const plan = planWaves(input);
    expect(verifyPlan(plan, input)).toEqual([]);
    const waveOf = (n: number) => plan.waves.find((w) => w.issues.some((i) => i.number === n));
    // The frame names src/c.ts, a serial path: run alone, whether inferred or added to a named scope.
    for (const n of [7, 8]) expect(waveOf(n)).toMatchObject({ kind: 'serial_singleton', issues: [expect.objectContaining({ number: n })] });
    expect(waveOf(9)!.kind).toBe('parallel');
  });

  it('never fences a control file on a guess: a frame, a path or a title pointing at one leaves the issue in triage, its candidates shown', () => {
    const files = ['package.json', '.github/workflows/ci.yml', '.claude/settings.json', 'vite.config.ts', 'waves.config.json', 'src/a.ts', 'src/b.ts', 'vitest.config.base.mts', 'knip.json', 'rollup.config.mjs'];
    const input: PlanInput = {
      repo: makeRepo({ files }),
      now: 0,
      issues: [
        issue(1, 'settings break', '    at load (/home/u/proj/.claude/settings.json:2:2)'),
        issue(2, 'fix(ci): workflow fails', ''),
        issue(3, 'build breaks', 'Error in /app/vite.config.ts:3:1 and /app/waves.config.json:1:1'),
        issue(4, 'Fix `src/a.ts`', 'also at x (/app/package.json:1:1)'),
        // A title scope naming a tool's config (red team N: a config module with a variant, a tool's JSON config).
        issue(5, 'chore(vitest): raise coverage thresholds in base config', ''),
        issue(6, 'chore(knip): ignore unused exports', ''),
        issue(7, 'chore(rollup): migrate commonjs to esmodule', ''),
      ],
      options: { inference: 'plan', inferenceThreshold: 0.3, requireAcceptanceCriteria: false, maxWaves: 10 },
    };
    const plan = planWaves(input);
    expect(verifyPlan(plan, input)).toEqual([]);
    for (const entry of plan.waves.flatMap((w) => w.issues)) for (const p of entry.paths) expect(isControlFile(p), `#${entry.number} ${p}`).toBe(false);
    expect(plan.triage.map((t) => t.number)).toEqual(expect.arrayContaining([1, 3]));
    expect(plan.triage.find((t) => t.number === 1)!.candidates!.map((c) => c.path)).toContain('.claude/settings.json');
    expect(plan.triage.map((t) => t.number)).toEqual(expect.arrayContaining([5, 6, 7]));
    expect(plan.triage.find((t) => t.number === 6)!.candidates![0]!.path).toBe('knip.json');
    expect(plan.triage.find((t) => t.number === 7)!.candidates![0]!.path).toBe('rollup.config.mjs');
    expect(plan.waves.flatMap((w) => w.issues).find((i) => i.number === 4)!.paths).toEqual(['src/a.ts']);
  });
});
