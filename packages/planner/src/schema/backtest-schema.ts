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
