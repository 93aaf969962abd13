import { z } from 'zod';

/** The most issues one plan evaluates: a million took 4 GB and ended out of memory (red team L5). */
export const MAX_TOP = 10_000;

/** How the planner is tuned. Every key has a default; `resolvePlanOptions` fills them in. */
export const PlanOptionsSchema = z.strictObject({
  top: z.number().int().min(1).max(MAX_TOP).default(10).describe('How many issues of the ranked backlog to evaluate (at most 10,000)'),
  waveSize: z.number().int().min(1).default(4).describe('Most issues in one wave'),
  maxWaves: z.number().int().min(1).default(2).describe('Waves planned; later ones go to deferred'),
  granularity: z
    .enum(['file', 'dir', 'package'])
    .default('file')
    .describe('What leaves are rolled up to before they are compared'),
  contentionDepth: z
    .number()
    .int()
    .min(0)
    .max(8)
    .default(1)
    .describe('Import hops between two issues that make them conflict (0 = imports ignored)'),
  maxFiles: z.number().int().min(1).default(8).describe('More code files than this → subdivide (tests, fixtures, docs and examples beside code do not count)'),
  maxSubsystems: z.number().int().min(1).default(3).describe('More subsystems (packages, top-level folders) holding the code of the change than this → subdivide'),
  maxSteps: z.number().int().min(1).default(15).describe('More steps than this → subdivide'),
  requireAcceptanceCriteria: z
    .boolean()
    .default(false)
    .describe('Issues without an acceptance-criteria section go to triage'),
  serial: z.array(z.string()).default([]).describe('Globs of high-blast-radius paths: an issue touching one runs alone (root files do not: they conflict with one another)'),
  hubs: z
    .enum(['off', 'fan-in', 'transitive'])
    .optional()
    .describe(
      'Whether touching a hub makes an issue run alone: off (the default), fan-in (files more than hubThreshold of the repository imports directly) or transitive (files it depends on, directly or not). When unset: transitive if hubThreshold (below 1) or hubMinDependents is set, as before hubs were opt-in; else off',
    ),
  hubThreshold: z
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe('Share of the repository that must depend on a file (as `hubs` measures it) for it to be a hub (default 0.25; 1 = no hubs)'),
  hubMinDependents: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('A hub also needs more than this many dependent files, so that small repositories are not all hubs (default 20)'),
  priorityLabels: z
    .record(z.string(), z.number().int().min(0))
    .refine((labels) => Object.keys(labels).length <= 1_000, { message: 'at most 1,000 labels' })
    .default({})
    .describe('Label → rank (0 is the most urgent), added to the built-in P0–P3 and priority:* labels'),
  lanes: z
    .record(
      z.string(),
      z.strictObject({
        paths: z.array(z.string()).min(1),
        keywords: z.array(z.string()).default([]),
      }),
    )
    .default({})
    .describe('Named lanes: paths or globs, optionally picked by keywords in titles'),
  holder: z.string().nullable().default(null).describe('Who is planning: leases of this holder do not hold issues back'),
  repoSlug: z
    .string()
    .nullable()
    .default(null)
    .describe('owner/name of the repository, to ignore GitHub links to files of other repositories'),
  routing: z
    .strictObject({
      categories: z.record(z.string(), z.string()).default({}),
      tiers: z.record(z.string(), z.looseObject({ manualOnly: z.boolean().optional() })).default({}),
      maxNonDefaultConcurrent: z.number().int().min(1).default(1),
    })
    .nullable()
    .default(null)
    .describe('Model routing: category → tier; at most maxNonDefaultConcurrent non-default-tier issues per wave'),
  inference: z
    .enum(['off', 'suggest', 'plan'])
    .default('suggest')
    .describe('Scope inference for issues that name no files: off; suggest (the default: they stay in triage, with their likely files as candidates); plan (an issue whose best candidate passes inferenceThreshold is dispatched with an inferred fence)'),
  inferenceThreshold: z
    .number()
    .min(0)
    .max(1)
    .default(0.7)
    .describe('In plan mode, the confidence (0..1) the best candidate needs for the issue to be dispatched (0.7: on the commit subjects of seven public TypeScript repositories it dispatched 65–85 % of the commits, with violations in 0–1.3 % of them; bench/RESULTS.md)'),
  exactLimit: z
    .number()
    .int()
    .min(0)
    .default(20)
    .describe('Up to this many dispatchable issues, the wave count is proven minimal by exact search'),
  searchBudget: z
    .number()
    .int()
    .min(1)
    .default(2_000_000)
    .describe('Node budget of the exact search before it falls back to the heuristic (keeps plans deterministic)'),
});

export type PlanOptions = z.output<typeof PlanOptionsSchema>;
export type PlanOptionsInput = z.input<typeof PlanOptionsSchema>;
