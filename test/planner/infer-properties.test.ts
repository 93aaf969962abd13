import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inferenceIndexOf, planWaves, type PlanInput, type PlanOptionsInput } from '@waves/planner';
import { makeRepo } from '../helpers/repo.js';
import { optionsArb, scenarioArb, type Scenario } from '../arbitraries.js';
import { assertValidPlan } from '../helpers/assert-valid-plan.js';

const RUNS = { numRuns: 150 };

/** Scenarios whose issues, some of them, name no path: a title of words from a file's path instead. */
const inferArb: fc.Arbitrary<{ s: Scenario; input: PlanInput }> = scenarioArb(
  fc.record({ base: optionsArb, inference: fc.constantFrom('suggest', 'plan'), threshold: fc.double({ min: 0, max: 1, noNaN: true }) }).map(
    ({ base, inference, threshold }): PlanOptionsInput => ({ ...base, inference: inference as 'suggest' | 'plan', inferenceThreshold: threshold }),
  ),
).chain((s) =>
  fc.array(fc.record({ vague: fc.boolean(), file: fc.nat(), words: fc.constantFrom('fix the', 'crash in', '`x` breaks', 'fix(core):') }), { minLength: s.input.issues.length, maxLength: s.input.issues.length }).map((picks) => {
    const files = s.repo.files;
    const issues = s.input.issues.map((issue, i) => {
      const pick = picks[i]!;
      if (!pick.vague || files.length === 0) return issue;
      const file = files[pick.file % files.length]!;
      return { ...issue, title: `${pick.words} ${file.split('/').slice(-2).join(' ').replace(/\.[a-z]+$/, '')}`, body: '' };
    });
    return { s, input: { ...s.input, issues } };
  }),
);

describe('plan properties with scope inference', () => {
  it('passes the shared plan assertion with inferred fences, in suggest and plan mode', () => {
    fc.assert(
      fc.property(inferArb, ({ input }) => {
        assertValidPlan(planWaves(input), input);
      }),
      RUNS,
    );
  });

  it('gives the identical plan, candidates included, for a shuffled backlog', () => {
    fc.assert(
      fc.property(
        inferArb.chain(({ input }) => fc.shuffledSubarray([...input.issues], { minLength: input.issues.length }).map((shuffled) => ({ input, shuffled }))),
        ({ input, shuffled }) => {
          expect(JSON.stringify(planWaves({ ...input, issues: shuffled }))).toBe(JSON.stringify(planWaves(input)));
        },
      ),
      RUNS,
    );
  });

  it('never names a candidate outside the repository, and marks inferred only dispatched issues of plan mode', () => {
    fc.assert(
      fc.property(inferArb, ({ s, input }) => {
        const plan = planWaves(input);
        const files = new Set(s.repo.files);
        const entries = [...plan.waves.flatMap((w) => w.issues), ...plan.triage];
        for (const entry of entries) {
          for (const c of entry.candidates ?? []) {
            expect(files.has(c.path)).toBe(true);
            expect(c.confidence).toBeGreaterThanOrEqual(0);
            expect(c.confidence).toBeLessThanOrEqual(1);
          }
          expect((entry.candidates ?? []).length).toBeLessThanOrEqual(5);
        }
        for (const t of plan.triage) expect(t.inferred ?? false).toBe(false);
        if (input.options?.inference !== 'plan') for (const entry of entries) expect(entry.inferred ?? false).toBe(false);
      }),
      RUNS,
    );
  });

  it('finds the files under a folder as one run of ids, whatever sorts next to it (`a-b/`, `a.ts`, `a0/` beside `a/`)', () => {
    const segment = fc.constantFrom('a', 'a-b', 'a.b', 'a0', 'b', 'A', 'é', 'src');
    const pathArb = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `${parts.join('/')}.ts`);
    fc.assert(
      fc.property(fc.uniqueArray(pathArb, { minLength: 1, maxLength: 40 }), fc.array(segment, { minLength: 1, maxLength: 3 }), (files, dirParts) => {
        const index = inferenceIndexOf(makeRepo({ files }));
        const dir = dirParts.join('/');
        const [from, to] = index.filesUnder(dir);
        const under = index.files.map((f, id) => [f, id] as const).filter(([f]) => f.startsWith(`${dir}/`)).map(([, id]) => id);
        expect(Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k)).toEqual(under);
      }),
      RUNS,
    );
  });
});
