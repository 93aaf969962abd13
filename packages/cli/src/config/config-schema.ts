/**
 * `waves.config.json`: one schema for the whole file — the planning keys (lanes, serial paths,
 * hubs, subdivide limits, priorities, defaults of `waves plan`) and the dispatch keys (agents,
 * routing, prompt, verify, leases). Every key optional; unknown keys are errors.
 */
import { z } from 'zod';
import { DispatchConfigShape } from '@waves/dispatch';
import { MAX_TOP } from '@waves/planner';
import { REPO_SLUG, REPO_SLUG_HINT } from '../sources/repo-slug.js';

const Granularity = z.enum(['file', 'dir', 'package']);

export const PlanDefaultsSchema = z.strictObject({
  top: z.number().int().min(1).max(MAX_TOP).optional(),
  waveSize: z.number().int().min(1).optional(),
  maxWaves: z.number().int().min(1).optional(),
  granularity: Granularity.optional(),
  contentionDepth: z.number().int().min(0).max(8).optional(),
  inference: z
    .enum(['off', 'suggest', 'plan'])
    .optional()
    .describe('Scope inference for issues that name no files: off, suggest (default: candidates shown, issue kept in triage), plan (dispatched when the best candidate passes inferenceThreshold)'),
  inferenceThreshold: z.number().min(0).max(1).optional().describe('In plan mode, the confidence (0..1) the best candidate needs (default 0.7)'),
  fromIssues: z.string().optional().describe('Issues file, relative to the root'),
  repo: z.string().regex(REPO_SLUG, REPO_SLUG_HINT).optional(),
  apiUrl: z
    .string()
    .url()
    .optional()
    .describe('GitHub API of this repository; used only when --api-url or GITHUB_API_URL names the same host'),
  apiTimeout: z
    .string()
    .regex(/^\d+(?:ms|s|m|h)$/, 'a duration such as 30s, 2m or 500ms')
    .optional()
    .describe('Longest wait for one GitHub answer before it is retried (default 30s)'),
  label: z.array(z.string()).optional().describe('Labels every issue must carry'),
  milestone: z.string().optional(),
  assignee: z.string().optional(),
  format: z.enum(['table', 'json', 'markdown', 'mermaid']).optional(),
});

export const ConfigSchema = z.strictObject({
  $schema: z.string().optional().describe('The JSON Schema of this file, for editors'),
  lanes: z
    .record(z.string(), z.strictObject({ paths: z.array(z.string()).min(1), keywords: z.array(z.string()).optional() }))
    .optional()
    .describe('Named lanes: paths or globs, optionally picked by keywords in titles; used by lane:<name> labels'),
  serial: z.array(z.string()).optional().describe('Globs of high-blast-radius paths: issues touching them run alone (root files only conflict with one another)'),
  hubs: z
    .enum(['off', 'fan-in', 'transitive'])
    .optional()
    .describe(
      'Whether an issue touching a hub runs alone: off (default), fan-in (a file more than hubThreshold of the repository imports directly) or transitive (… depends on, directly or not)',
    ),
  hubThreshold: z
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe('Share of the repository depending on a file that makes it a hub (default 0.25; 1 = no hubs); set without "hubs", it means "transitive"'),
  hubMinDependents: z.number().int().min(0).optional().describe('Fewest dependents of a hub (default 20); set without "hubs", it means "transitive"'),
  subdivide: z
    .strictObject({
      maxFiles: z.number().int().min(1).optional(),
      maxSubsystems: z.number().int().min(1).optional(),
      maxSteps: z.number().int().min(1).optional(),
    })
    .optional()
    .describe('Beyond these, an issue goes to subdivide (defaults 8 files, 3 subsystems, 15 steps); files and subsystems count the code a change spans, not the tests, fixtures, docs and examples beside it'),
  requireAcceptanceCriteria: z.boolean().optional().describe('Issues without an acceptance-criteria section go to triage'),
  priorityLabels: z.record(z.string(), z.number().int().min(0)).refine((labels) => Object.keys(labels).length <= 1_000, { message: 'at most 1,000 labels' }).optional().describe('Label → rank (0 most urgent), besides P0–P3 and priority:*'),
  defaults: PlanDefaultsSchema.optional().describe('Defaults of the waves plan flags; flags override them'),
  ...DispatchConfigShape,
});

export type WavesConfig = z.infer<typeof ConfigSchema>;
export const CONFIG_FILE = 'waves.config.json';
export const CONFIG_SCHEMA_FILE = 'waves.config.schema.json';
