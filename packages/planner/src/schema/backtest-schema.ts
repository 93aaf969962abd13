import { z } from 'zod';

/** Bump when the meaning of the backtest report changes (2: the reference plans the dispatched issues only; `root-files` replaces `serial-root`). */
export const BACKTEST_SCHEMA_VERSION = 2 as const;

const Count = z.number().int().min(0);
const IssueNumber = z.number().int().positive();

export const TruthEvidenceSchema = z.object({
  kind: z.enum(['path', 'new-dir', 'import']),
  detail: z.string(),
});

export const BacktestRuleSchema = z.object({
  rule: z.enum(['root-files', 'serial-config', 'hub', 'import', 'path', 'dependency', 'subdivide', 'triage']),
  label: z.string(),
  issues: Count.nullable().describe('Issues it applied to (root files, serial rules, subdivide, triage)'),
  pairs: Count.nullable().describe('Conflicting pairs of dispatchable issues it found (root files, path, import, dependency)'),
  truePairs: Count.describe('True conflicts it kept apart, alone or with other rules'),
  wavesCost: z.number().int().nullable().describe('Waves of the plan minus waves of the plan re-partitioned without it (null: cannot be switched off)'),
  wavesWithout: Count.nullable(),
  alonePrevented: Count.describe('True conflicts it kept apart that no other rule would have'),
});

const Share = z.number().min(0).max(1);

const AccuracySchema = z.object({
  any: Share.describe('Share of the issues with a true file among the top k'),
  all: Share.describe('Share of the issues with every true file among the top k'),
});

export const LocalisationFiguresSchema = z.object({
  locatable: Count.describe('Issues judged: those whose commit edits or deletes a code file that is not a test (the true files)'),
  withCandidates: Count.describe('Of those, issues with at least one candidate'),
  at1: AccuracySchema,
  at5: AccuracySchema,
});

/** Scope inference judged file by file, as the SWE-bench localisation papers count it, beside a plain BM25 match of the issue text against file paths. */
export const BacktestLocalisationSchema = z.object({
  all: LocalisationFiguresSchema.describe("The plan's candidates over every locatable issue (an issue without candidates is a miss); an issue dispatched on files its text names has those first"),
  candidates: LocalisationFiguresSchema.describe('The same over the issues the planner gave candidates'),
  baseline: LocalisationFiguresSchema.describe('Plain BM25 of the title and body against the code file paths of the base, top 5, over every locatable issue'),
  baselineOnCandidates: LocalisationFiguresSchema.describe('The baseline over the issues the planner gave candidates'),
  goalAt5: Share.describe('The Acc@5 (any) goal of issue #13: at least 60 %, and half of the baseline misses recovered'),
  inferredDispatched: Count.describe('Issues dispatched on an inferred fence (plan mode)'),
  inferredViolations: Count.describe('Violations involving an issue dispatched on an inferred fence'),
  fence: z.object({
    issues: Count.describe('Issues dispatched on an inferred fence with at least one true file'),
    recall: Share.nullable().describe('Mean share of their true files inside the fence'),
    complete: Share.nullable().describe('Share of them whose fence holds every true file'),
  }),
  calibration: z
    .array(
      z.object({
        from: Share,
        to: Share,
        issues: Count.describe('Locatable issues naming no file whose best candidate had a confidence in [from, to) (1 included in the last tenth)'),
        hits: Count.describe('Of those, the issues whose best candidate is a true file'),
      }),
    )
    .describe('How sure the best candidate was against how often it was right, in tenths of confidence, lowest first (empty tenths left out)'),
});

const FenceReason = z.enum(['overlap', 'import', 'root', 'serial', 'control']);

/** The plan replayed with live fences: each run's true files written in turn, every write outside its fence decided by the lease rule. */
export const BacktestLiveFencesSchema = z.object({
  writes: Count.describe("Files the dispatched issues' commits wrote"),
  inFence: Count,
  granted: Count.describe('Writes outside the fence the lease rule granted: the fence widened'),
  refused: Count.describe('Writes refused: another run holds the path (overlap) or a file it imports or is imported by (import)'),
  person: Count.describe('Writes needing a person: root files and serial paths, never granted to a parallel run'),
  issuesStopped: Count.describe('Dispatched issues with at least one write refused or needing a person'),
  planViolations: Count.describe("The plan's violations: what the plan alone would have let collide"),
  collisions: Count.describe('Pairs of runs of one wave whose writes still truly conflict with live fences (the goal is 0)'),
  collisionPairs: z.array(z.object({ wave: z.number().int().positive(), a: IssueNumber, b: IssueNumber, evidence: z.array(TruthEvidenceSchema) })),
  events: z.array(
    z.object({
      wave: z.number().int().positive(),
      number: IssueNumber,
      path: z.string(),
      outcome: z.enum(['granted', 'refused', 'person']),
      reason: FenceReason.nullable(),
      detail: z.string().nullable(),
    }),
  ),
});

/** `waves backtest --json`: a plan of a repository's own history, judged against what the commits touched. */
export const BacktestReportSchema = z.object({
  schemaVersion: z.literal(BACKTEST_SCHEMA_VERSION),
  repo: z.object({
    root: z.string(),
    /** The commit the plan is made against: the parent of the oldest commit replayed. */
    base: z.string(),
    until: z.string(),
    since: z.string().nullable(),
    /** First-parent commits read (merges and skipped commits included). */
    commits: Count,
    /** Files and import edges of the repository at the base. */
    files: Count,
    imports: Count,
  }),
  options: z.object({
    grade: z.enum(['files', 'dirs', 'title']),
    maxFiles: z.number().int().positive(),
    waveSize: z.number().int().positive(),
    granularity: z.enum(['file', 'dir', 'package']),
    contentionDepth: Count,
    /** Scope inference of the plan (null: a planner without it). */
    inference: z.object({ mode: z.enum(['off', 'suggest', 'plan']), threshold: z.number().nullable() }).nullable(),
    /** Where the truth's import edges come from: waves' own graph at the base, or the file given. */
    truth: z.object({ source: z.enum(['waves', 'dependency-cruiser', 'waves-graph']), file: z.string().nullable(), edges: Count }),
  }),
  summary: z.object({
    issues: Count,
    dispatched: Count,
    /** dispatched ÷ issues (1 when there is no issue). */
    dispatchedShare: z.number().min(0).max(1),
    waves: Count,
    /** Waves of the perfect-knowledge reference: the dispatched issues, first fit in rank order over the true conflicts and the plan's dependencies, same wave size. */
    referenceWaves: Count,
    /** waves ÷ referenceWaves (null when the reference has none). */
    wavesRatio: z.number().min(0).nullable(),
    violations: Count,
    truePairs: Count,
  }),
  localisation: BacktestLocalisationSchema,
  /** Live fences replayed (null: no lease rule given to the backtest). */
  liveFences: BacktestLiveFencesSchema.nullable(),
  rules: z.array(BacktestRuleSchema),
  violations: z.array(z.object({ wave: z.number().int().positive(), a: IssueNumber, b: IssueNumber, evidence: z.array(TruthEvidenceSchema) })),
  issues: z.array(
    z.object({
      number: IssueNumber,
      sha: z.string(),
      title: z.string(),
      files: z.array(z.object({ path: z.string(), change: z.enum(['edit', 'create', 'delete']) })),
      bucket: z.enum(['wave', 'subdivide', 'triage', 'deferred', 'held']),
      wave: z.number().int().positive().nullable(),
      /** Its wave in the perfect-knowledge reference (null: not dispatched, so not in the reference). */
      referenceWave: z.number().int().positive().nullable(),
      /** Why it runs alone, or why it is not in a wave. */
      reason: z.string().nullable(),
      /** Its fence when dispatched: the plan's paths, as repository paths (`''`: the whole repository); null when not dispatched. */
      fence: z.array(z.string()).nullable(),
      /** Dispatched on an inferred fence. */
      inferred: z.boolean(),
      /** What the localisation is judged against: the code files the commit edits or deletes, tests aside. */
      truthFiles: z.array(z.string()),
      /** The files the plan points at, best first (top 5): the files its text names when dispatched on them, then the candidates of scope inference. */
      candidates: z.array(z.string()),
      /** 1-based rank of the first true file among the candidates (null: none). */
      candidateHit: z.number().int().positive().nullable(),
      /** The BM25 baseline's top 5. */
      baseline: z.array(z.string()),
      baselineHit: z.number().int().positive().nullable(),
    }),
  ),
  waves: z.array(z.array(IssueNumber)),
  referenceWaves: z.array(z.array(IssueNumber)),
  trueConflicts: z.array(z.object({ a: IssueNumber, b: IssueNumber, evidence: z.array(TruthEvidenceSchema) })),
  skipped: z.array(
    z.object({ sha: z.string(), subject: z.string(), reason: z.enum(['merge', 'no-files', 'too-many-files', 'no-code', 'only-tests']) }),
  ),
});

export type BacktestReport = z.infer<typeof BacktestReportSchema>;
export type BacktestRule = z.infer<typeof BacktestRuleSchema>;
export type BacktestLocalisation = z.infer<typeof BacktestLocalisationSchema>;
export type BacktestLiveFences = z.infer<typeof BacktestLiveFencesSchema>;
