import { z } from 'zod';

/** Bump when the meaning of the plan JSON changes. */
export const PLAN_SCHEMA_VERSION = 1 as const;

const IssueRef = {
  number: z.number().int().positive(),
  title: z.string(),
  url: z.string().nullable(),
};

/** The kinds of evidence scope inference reads in an issue (see infer/). */
export const EvidenceKindSchema = z.enum(['frame', 'path', 'identifier', 'filename', 'message', 'scope', 'lane', 'words', 'neighbour']);

export const EvidenceSchema = z.object({
  kind: EvidenceKindSchema,
  /** The text of the issue that matched (cut to 120 characters). */
  text: z.string(),
  /** Where in the issue: the title, or the body (with its 1-based line). */
  where: z.object({ field: z.enum(['title', 'body']), line: z.number().int().positive().optional() }),
  /** What it matched in the repository: the declaration, the literal, the frame's file, the path, the past commit. */
  matched: z.string(),
});

/** A file an issue that names no (or not every) file is likely to touch, inferred from its text. */
export const CandidateSchema = z.object({
  /** A repository file. */
  path: z.string(),
  /** 0..1: how sure the inference is. */
  confidence: z.number().min(0).max(1),
  /** Why, strongest first. */
  evidence: z.array(EvidenceSchema),
});

const Inferred = {
  /** Files the issue's text points at (scope inference), best first, at most five; absent when inference is off or found nothing. */
  candidates: z.array(CandidateSchema).optional(),
  /** True when the fence (paths) came from inference, not from paths the issue names. */
  inferred: z.boolean().optional(),
};

export const PlanIssueSchema = z.object({
  ...IssueRef,
  /** Lanes from labels and config, else the subsystems (packages or top-level directories) its paths lie in. */
  lanes: z.array(z.string()),
  /** The leaves of its scope after the granularity roll-up: the fence its agent may edit. */
  paths: z.array(z.string()),
  /** Model tier from routing (`default` when no category routes elsewhere). */
  tier: z.string(),
  /** The routing rule that chose the tier. */
  tierRule: z.string(),
  /** Why it runs alone, when it does. */
  serial: z.string().nullable(),
  /** Selected issues it depends on (always in earlier waves). */
  dependsOn: z.array(z.number().int().positive()),
  ...Inferred,
});

export const WaveSchema = z.object({
  index: z.number().int().positive(),
  kind: z.enum(['parallel', 'serial_singleton']),
  issues: z.array(PlanIssueSchema),
});

export const LeaseRefSchema = z.object({
  id: z.string().nullable(),
  lane: z.string(),
  holder: z.string(),
  until: z.string(),
});

export const ConflictKindSchema = z.enum(['path', 'import', 'dependency', 'serial']);

export const PlanSchema = z.object({
  schemaVersion: z.literal(PLAN_SCHEMA_VERSION),
  generatedAt: z.string(),
  repo: z.object({
    root: z.string(),
    head: z.string().nullable(),
    files: z.number().int().min(0),
    imports: z.number().int().min(0),
  }),
  options: z.object({
    /** Scope inference: off, suggest (candidates shown, triage kept) or plan (confident candidates dispatched). */
    inference: z.enum(['off', 'suggest', 'plan']).optional(),
    inferenceThreshold: z.number().min(0).max(1).optional(),
    top: z.number().int().positive(),
    waveSize: z.number().int().positive(),
    maxWaves: z.number().int().positive(),
    granularity: z.enum(['file', 'dir', 'package']),
    contentionDepth: z.number().int().min(0),
  }),
  summary: z.object({
    evaluated: z.number().int().min(0),
    dispatchable: z.number().int().min(0),
    waves: z.number().int().min(0),
    subdivide: z.number().int().min(0),
    triage: z.number().int().min(0),
    held: z.number().int().min(0),
    deferred: z.number().int().min(0),
    /** True when the number of waves is proven minimal (exact search finished). */
    optimal: z.boolean(),
  }),
  summaryLine: z.string(),
  waves: z.array(WaveSchema),
  subdivide: z.array(
    z.object({ ...IssueRef, reason: z.string(), childBudget: z.number().int().min(2), paths: z.array(z.string()) }),
  ),
  triage: z.array(z.object({ ...IssueRef, reason: z.string(), ...Inferred })),
  held: z.array(
    z.object({
      ...IssueRef,
      lease: LeaseRefSchema,
      /** Why the lease holds it: its scope overlaps the lease, an import chain reaches it, or it runs alone. */
      reason: z.string().optional(),
    }),
  ),
  deferred: z.array(z.object({ ...IssueRef, reason: z.string(), waitsFor: z.array(z.number().int().positive()) })),
  conflicts: z.array(
    z.object({
      a: z.number().int().positive(),
      b: z.number().int().positive(),
      kind: ConflictKindSchema,
      detail: z.string(),
    }),
  ),
  /** Things a person should know: paths dropped for escaping the root, names that resolved to nothing. */
  warnings: z.array(z.object({ number: z.number().int().positive(), message: z.string() })),
});

export type Plan = z.infer<typeof PlanSchema>;
export type PlanIssue = z.infer<typeof PlanIssueSchema>;
export type Wave = z.infer<typeof WaveSchema>;
export type ConflictKind = z.infer<typeof ConflictKindSchema>;
export type Candidate = z.infer<typeof CandidateSchema>;
export type Evidence = z.infer<typeof EvidenceSchema>;
export type EvidenceKind = z.infer<typeof EvidenceKindSchema>;
export type PlanConflict = Plan['conflicts'][number];
