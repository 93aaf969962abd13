/**
 * Burndown: a saved plan (the baseline) against the backlog as it is now. Which of the issues the
 * baseline put in waves are closed (or gone from the backlog), the progress in percent, the waves
 * the rest still need — re-planned on the current repository, leases and dependencies, with the
 * baseline's options — and the issues opened since the baseline was made.
 */
import { z } from 'zod';
import { analyzePlan, type PlanInput } from '../plan.js';
import type { Plan } from '../schema/plan-schema.js';
import type { BacklogIssue } from '../types.js';

const Ref = { number: z.number().int().positive(), title: z.string(), url: z.string().nullable() };

export const ComparisonSchema = z.object({
  baseline: z.object({ generatedAt: z.string(), head: z.string().nullable(), planned: z.number().int().min(0), waves: z.number().int().min(0) }),
  now: z.object({ generatedAt: z.string(), head: z.string().nullable() }),
  progress: z.object({ planned: z.number().int().min(0), closed: z.number().int().min(0), percent: z.number().min(0).max(100) }),
  closed: z.array(
    z.object({
      ...Ref,
      /** `closed`: the backlog says so; `gone`: the backlog no longer lists it (closed, deleted or moved). */
      how: z.enum(['closed', 'gone']),
      baselineWave: z.number().int().positive(),
    }),
  ),
  open: z.array(
    z.object({
      ...Ref,
      baselineWave: z.number().int().positive(),
      /** Where the re-plan puts it: a wave, or held, deferred, subdivide, triage. */
      now: z.object({ bucket: z.enum(['wave', 'held', 'deferred', 'subdivide', 'triage']), wave: z.number().int().positive().nullable(), reason: z.string().nullable() }),
    }),
  ),
  remaining: z.object({
    waves: z.number().int().min(0),
    plan: z.array(z.object({ index: z.number().int().positive(), kind: z.enum(['parallel', 'serial_singleton']), issues: z.array(z.number().int().positive()) })),
  }),
  new: z.array(z.object({ ...Ref, createdAt: z.string().nullable() })),
});

export type Comparison = z.infer<typeof ComparisonSchema>;

export interface CompareInput {
  baseline: Plan;
  /** The backlog now, with the state of every issue it knows (closed ones included, if read). */
  issues: readonly BacklogIssue[];
  /** The repository, leases and time for the re-plan. */
  repo: PlanInput['repo'];
  leases: PlanInput['leases'];
  now: PlanInput['now'];
  /** Options for the re-plan beyond the baseline's own (priority labels, serial paths, holder…). */
  options?: PlanInput['options'];
}

export function compareWithBaseline(input: CompareInput): Comparison {
  const { baseline } = input;
  const current = new Map(input.issues.map((i) => [i.number, i]));
  const planned = baseline.waves.flatMap((w) => w.issues.map((i) => ({ ...i, baselineWave: w.index })));
  const closed: Comparison['closed'] = [];
  const stillOpen: (typeof planned)[number][] = [];
  for (const issue of planned) {
    const now = current.get(issue.number);
    if (!now) closed.push({ number: issue.number, title: issue.title, url: issue.url, how: 'gone', baselineWave: issue.baselineWave });
    else if (now.state !== 'open') closed.push({ number: issue.number, title: now.title, url: now.url, how: 'closed', baselineWave: issue.baselineWave });
    else stillOpen.push(issue);
  }

  // The waves the unfinished work still needs: only the baseline's open issues are selected
  // (closed issues stay in the backlog, so that a dependency on one counts as done).
  const openNumbers = new Set(stillOpen.map((i) => i.number));
  const replanIssues = input.issues.filter((i) => openNumbers.has(i.number) || i.state !== 'open');
  const count = Math.max(1, openNumbers.size);
  const { plan } = analyzePlan({
    issues: replanIssues,
    repo: input.repo,
    leases: input.leases,
    now: input.now,
    options: {
      ...input.options,
      top: count,
      waveSize: baseline.options.waveSize,
      maxWaves: count,
      granularity: baseline.options.granularity,
      contentionDepth: baseline.options.contentionDepth,
    },
  });
  const where = (n: number): Comparison['open'][number]['now'] => {
    const wave = plan.waves.find((w) => w.issues.some((i) => i.number === n));
    if (wave) return { bucket: 'wave', wave: wave.index, reason: null };
    const held = plan.held.find((h) => h.number === n);
    if (held) return { bucket: 'held', wave: null, reason: `${held.lease.lane} is leased by ${held.lease.holder} until ${held.lease.until}` };
    for (const bucket of ['deferred', 'subdivide', 'triage'] as const) {
      const entry = plan[bucket].find((x) => x.number === n);
      if (entry) return { bucket, wave: null, reason: entry.reason };
    }
    return { bucket: 'triage', wave: null, reason: 'not planned' };
  };
  const open = stillOpen.map((i) => {
    const now = current.get(i.number)!;
    return { number: i.number, title: now.title, url: now.url, baselineWave: i.baselineWave, now: where(i.number) };
  });

  const known = new Set<number>([
    ...planned.map((i) => i.number),
    ...[baseline.subdivide, baseline.triage, baseline.held, baseline.deferred].flatMap((list) => list.map((x) => x.number)),
  ]);
  const since = Date.parse(baseline.generatedAt);
  const fresh = input.issues
    .filter((i) => i.state === 'open' && !known.has(i.number) && i.createdAt !== null && Date.parse(i.createdAt) > since)
    .sort((a, b) => Date.parse(a.createdAt!) - Date.parse(b.createdAt!) || a.number - b.number)
    .map((i) => ({ number: i.number, title: i.title, url: i.url, createdAt: i.createdAt }));

  return {
    baseline: { generatedAt: baseline.generatedAt, head: baseline.repo.head, planned: planned.length, waves: baseline.waves.length },
    now: { generatedAt: plan.generatedAt, head: input.repo.head },
    progress: { planned: planned.length, closed: closed.length, percent: planned.length === 0 ? 100 : Math.round((closed.length / planned.length) * 1000) / 10 },
    closed,
    open,
    remaining: { waves: plan.waves.length, plan: plan.waves.map((w) => ({ index: w.index, kind: w.kind, issues: w.issues.map((i) => i.number) })) },
    new: fresh,
  };
}
