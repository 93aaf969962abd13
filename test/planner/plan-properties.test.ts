import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzePlan, nextCandidate, planWaves, verifyPlan, type Plan } from '@waves/planner';
import { optionsArb, scenarioArb } from '../arbitraries.js';
import { assertValidPlan, conflictingPairs, expand, isRootFilePath, pathsOverlap, reaches } from '../helpers/assert-valid-plan.js';

const RUNS = { numRuns: 150 };

function bucketsOf(plan: Plan): number[] {
  return [
    ...plan.waves.flatMap((w) => w.issues.map((i) => i.number)),
    ...plan.subdivide.map((i) => i.number),
    ...plan.triage.map((i) => i.number),
    ...plan.held.map((i) => i.number),
    ...plan.deferred.map((i) => i.number),
  ];
}

describe('planWaves properties', () => {
  it('always puts every selected issue in exactly one bucket', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ input }) => {
        const analysis = analyzePlan(input);
        const numbers = bucketsOf(analysis.plan).sort((a, b) => a - b);
        expect(numbers).toEqual(analysis.selected.map((i) => i.number).sort((a, b) => a - b));
        const open = input.issues.filter((i) => i.state === 'open').length;
        expect(analysis.plan.summary.evaluated).toBe(Math.min(open, analysis.options.top));
      }),
      RUNS,
    );
  });

  it('never puts two conflicting issues in one wave (verifyPlan and a brute-force pair check)', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ input, repo }) => {
        const plan = planWaves(input);
        expect(verifyPlan(plan, input).filter((v) => v.rule === 'conflict')).toEqual([]);
        expect(conflictingPairs(plan, repo.files, repo.edges, plan.options.contentionDepth)).toEqual([]);
      }),
      RUNS,
    );
  });

  it('never exceeds the wave size or the number of waves', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ input }) => {
        const plan = planWaves(input);
        for (const wave of plan.waves) expect(wave.issues.length).toBeLessThanOrEqual(plan.options.waveSize);
        expect(plan.waves.length).toBeLessThanOrEqual(plan.options.maxWaves);
      }),
      RUNS,
    );
  });

  it('never puts two issues touching root files in one wave, and never makes one run alone for them', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ input }) => {
        const plan = planWaves(input);
        for (const wave of plan.waves) {
          expect(wave.issues.filter((i) => i.paths.some(isRootFilePath)).length).toBeLessThanOrEqual(1);
          for (const issue of wave.issues) if (issue.paths.some(isRootFilePath)) expect(issue.serial === null || !/root/.test(issue.serial)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('always schedules a dependency in a strictly earlier wave, or defers the dependent', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ input, backlog }) => {
        const plan = planWaves(input);
        const waveOf = new Map<number, number>();
        plan.waves.forEach((w) => w.issues.forEach((i) => waveOf.set(i.number, w.index)));
        const selected = new Set(bucketsOf(plan));
        for (const [number, wave] of waveOf) {
          for (const dep of backlog.deps.get(number) ?? []) {
            if (!selected.has(dep)) continue;
            expect(waveOf.get(dep), `#${number} depends on #${dep}`).toBeDefined();
            expect(waveOf.get(dep)!).toBeLessThan(wave);
          }
        }
      }),
      RUNS,
    );
  });

  it('gives the identical plan for a shuffled backlog', () => {
    fc.assert(
      fc.property(
        scenarioArb().chain((s) => fc.shuffledSubarray([...s.input.issues], { minLength: s.input.issues.length }).map((shuffled) => ({ s, shuffled }))),
        ({ s, shuffled }) => {
          const a = planWaves(s.input);
          const b = planWaves({ ...s.input, issues: shuffled });
          expect(JSON.stringify(b)).toBe(JSON.stringify(a));
        },
      ),
      RUNS,
    );
  });

  it('finds the fewest waves a brute-force search finds, for up to 8 dispatchable issues', () => {
    const roomy = optionsArb.map((o) => ({ ...o, maxWaves: 20 }));
    fc.assert(
      fc.property(scenarioArb(roomy), ({ input, repo }) => {
        const plan = planWaves(input);
        const members = plan.waves.flatMap((w) => w.issues);
        fc.pre(members.length > 0 && members.length <= 8 && !plan.deferred.some((d) => d.reason.startsWith('beyond')));
        const depth = plan.options.contentionDepth;
        const n = members.length;
        // Both touching root files (one, a directory holding one, or the root itself) conflict.
        const touchesRoot = (paths: readonly string[]): boolean =>
          paths.some((p) => p === './' || isRootFilePath(p) || (p.endsWith('/') && repo.files.some((f) => f.startsWith(p) && isRootFilePath(f))));
        const conflict = (i: number, j: number): boolean => {
          const x = members[i]!;
          const y = members[j]!;
          if (x.paths.some((p) => y.paths.some((q) => pathsOverlap(p, q)))) return true;
          if (x.serial || y.serial) return true;
          if (touchesRoot(x.paths) && touchesRoot(y.paths)) return true;
          const expand = (paths: string[]) => new Set(repo.files.filter((f) => paths.some((p) => p === f || (p.endsWith('/') && f.startsWith(p)))));
          if (depth > 0 && (reaches(expand(x.paths), expand(y.paths), repo.edges, depth) || reaches(expand(y.paths), expand(x.paths), repo.edges, depth))) return true;
          return false;
        };
        const before = (i: number, j: number) => members[j]!.dependsOn.includes(members[i]!.number);
        // Brute force: try every assignment of the n issues to k ordered waves, smallest k first.
        const feasible = (k: number): boolean => {
          const wave = new Array<number>(n).fill(-1);
          const place = (v: number): boolean => {
            if (v === n) return true;
            for (let w = 0; w < k; w++) {
              let ok = wave.filter((x) => x === w).length < plan.options.waveSize;
              for (let u = 0; u < v && ok; u++) {
                if (wave[u] === w && conflict(u, v)) ok = false;
                if (before(u, v) && !(wave[u]! < w)) ok = false;
                if (before(v, u) && !(w < wave[u]!)) ok = false;
              }
              if (!ok) continue;
              wave[v] = w;
              if (place(v + 1)) return true;
              wave[v] = -1;
            }
            return false;
          };
          return place(0);
        };
        let optimum = 1;
        while (!feasible(optimum)) optimum++;
        expect(plan.waves.length).toBe(optimum);
        expect(plan.summary.optimal).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('passes the shared plan assertion on every random scenario', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ input }) => {
        assertValidPlan(planWaves(input), input);
      }),
      RUNS,
    );
  });

  it('always lists each conflict once per pair and kind, sorted by a, b, then dependency, serial, path, import', () => {
    const order = ['dependency', 'serial', 'path', 'import'];
    // Some serial globs, so that serial pairs are merged into the list too.
    const withSerial = optionsArb.chain((options) => fc.constantFrom<string[][]>([], ['packages/p0/**'], ['**/f1.ts', 'packages/p1/src/sub/**']).map((serial) => ({ ...options, serial: [...serial] })));
    fc.assert(
      fc.property(scenarioArb(withSerial), ({ input }) => {
        const { conflicts } = planWaves(input);
        const keys = conflicts.map((c) => `${c.a}:${c.b}:${c.kind}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(conflicts.every((c) => c.a < c.b)).toBe(true);
        const sorted = [...conflicts].sort((p, q) => p.a - q.a || p.b - q.b || order.indexOf(p.kind) - order.indexOf(q.kind));
        expect(conflicts).toEqual(sorted);
      }),
      RUNS,
    );
  });
});

describe('nextCandidate properties', () => {
  it('replaces refused issues only with issues that fit the wave: no conflict, no pending dependency, caps kept, never twice', () => {
    fc.assert(
      fc.property(scenarioArb(), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), ({ input, repo }, refusals) => {
        const analysis = analyzePlan(input);
        const first = analysis.plan.waves[0];
        if (!first) return;
        const units = new Map(analysis.units.map((u) => [u.number, u]));
        const considered = new Set<number>();
        const started = new Set<number>();
        const queue = first.issues.map((i) => i.number);
        let refused = 0;
        // Dispatch the wave; refuse some leases; fill each refused slot with the next candidate.
        while (queue.length > 0) {
          const n = queue.shift()!;
          considered.add(n);
          if (refusals[refused++ % refusals.length]) {
            const next = nextCandidate(analysis, new Set([...started, ...queue]), considered);
            if (next !== null) {
              expect(considered.has(next)).toBe(false);
              considered.add(next);
              queue.push(next);
            }
          } else started.add(n);
        }
        expect(started.size).toBeLessThanOrEqual(analysis.options.waveSize);
        const members = [...started].map((n) => units.get(n)!);
        if (members.some((u) => u.serial)) expect(members).toHaveLength(1);
        for (const unit of members) expect(unit.dependsOn.filter((d) => units.has(d) && !started.has(d) && d !== unit.number)).toEqual([]);
        const issueOf = (n: number) => ({
          number: n,
          title: '',
          url: null as string | null,
          lanes: [] as string[],
          paths: (analysis.leaves.get(n) ?? []).map((l) => (l.dir ? `${l.path}/` : l.path)),
          tier: 'default',
          tierRule: '',
          serial: null as string | null,
          dependsOn: [...units.get(n)!.dependsOn],
        });
        const wave = { ...analysis.plan, waves: [{ index: 1, kind: 'parallel' as const, issues: [...started].map(issueOf) }] };
        expect(conflictingPairs(wave, repo.files, repo.edges, analysis.plan.options.contentionDepth)).toEqual([]);
      }),
      RUNS,
    );
  });

  it("keeps every issue that overlaps or imports another holder's live lease out of the waves, and holds only for a reason", () => {
    const NOW = Date.parse('2026-11-29T12:00:00.000Z');
    fc.assert(
      fc.property(
        scenarioArb().chain((scenario) => {
          const dirs = [...new Set(scenario.repo.files.flatMap((f) => (f.includes('/') ? [f.slice(0, f.lastIndexOf('/'))] : [])))];
          const lane = fc.oneof(fc.constantFrom(...scenario.repo.files), fc.constantFrom(...dirs));
          const lease = fc.record({
            lane,
            holder: fc.constantFrom('other', 'another', 'me'),
            until: fc.constantFrom(new Date(NOW + 3_600_000).toISOString(), new Date(NOW - 1_000).toISOString()),
          });
          return fc.record({ scenario: fc.constant(scenario), leases: fc.array(lease, { maxLength: 3 }) });
        }),
        ({ scenario, leases }) => {
          const input = { ...scenario.input, options: { ...scenario.input.options, holder: 'me' }, leases: leases.map((l, i) => ({ ...l, id: `l${i}` })) };
          const analysis = analyzePlan(input);
          const { plan } = analysis;
          const files = scenario.repo.files;
          const live = leases.filter((l) => l.holder !== 'me' && Date.parse(l.until) > NOW);
          // A leased lane as a path of the plan: a directory ends with '/'.
          const leased = live.map((l) => (files.includes(l.lane) ? l.lane : `${l.lane}/`));
          const depth = plan.options.contentionDepth;
          const contends = (paths: string[]) => {
            const mine = expand(paths, files);
            return leased.some((q) => {
              const theirs = expand([q], files);
              return paths.some((p) => pathsOverlap(p, q)) || (depth > 0 && (reaches(mine, theirs, scenario.repo.edges, depth) || reaches(theirs, mine, scenario.repo.edges, depth)));
            });
          };
          for (const wave of plan.waves) for (const issue of wave.issues) expect(contends(issue.paths), `#${issue.number}`).toBe(false);
          // The independent checker agrees.
          expect(verifyPlan(plan, input)).toEqual([]);
          for (const held of plan.held) {
            expect(live.length).toBeGreaterThan(0);
            const paths = (analysis.leaves.get(held.number) ?? []).map((l) => (l.dir ? `${l.path}/` : l.path));
            expect(contends(paths) || held.reason!.startsWith('it runs alone'), `#${held.number}: ${held.reason}`).toBe(true);
          }
        },
      ),
      RUNS,
    );
  });
});
