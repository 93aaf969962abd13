/**
 * Reads `waves.config.json` (at the root, or the file given with --config) and turns the
 * planning keys into planner options. Errors name the file, the key path and what was expected.
 */
import path from 'node:path';
import { ConfigError, globProblem, jsonPath, normalisePattern, parseJsonText, readRegularFile, type PlanOptionsInput } from '@waves/planner';
import type { z } from 'zod';
import { nearest } from '../args.js';
import { CONFIG_FILE, ConfigSchema, type WavesConfig } from './config-schema.js';

export interface LoadedConfig {
  config: WavesConfig;
  /** The file read, or null when there is none. */
  file: string | null;
  /** Named with --config (the user's own), rather than found at the root (the repository's): see config-paths.ts. */
  explicit: boolean;
  /** The file as messages name it (as given with --config, else waves.config.json). */
  shown: string;
}

/** Known keys at a path of the schema, for "did you mean" hints. */
function knownKeys(schema: z.ZodType, keyPath: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const key of keyPath) {
    current = unwrap(current);
    const shape = (current as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
    if (shape && typeof key === 'string' && key in shape) current = shape[key];
    else {
      const record = current as { valueType?: z.ZodType } | undefined;
      current = record?.valueType;
    }
    if (!current) return [];
  }
  const shape = (unwrap(current) as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema as { unwrap?: () => z.ZodType; def?: { innerType?: z.ZodType; type?: string } } | undefined;
  for (let i = 0; i < 8 && current; i++) {
    const inner = current.def?.innerType;
    if (!inner) break;
    current = inner as typeof current;
  }
  return current as z.ZodType | undefined;
}

function describeProblem(file: string, issue: z.core.$ZodIssue): string {
  const where = jsonPath(issue.path).replace(/^\$\.?/, '') || '(top level)';
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys: string[] }).keys;
    const hints = keys.map((key) => {
      const hint = nearest(key, knownKeys(ConfigSchema, issue.path));
      return `"${key}"${hint ? ` (did you mean "${hint}"?)` : ''}`;
    });
    return `${file}: unknown key ${hints.join(', ')} in ${where}`;
  }
  return `${file}: ${where}: ${issue.message}`;
}

/**
 * Where the parsed JSON holds a key `__proto__` (`agents.__proto__`), or null: a map of the config
 * keyed so would lose the entry silently (it sets the prototype; red team L9). The JSON's depth is
 * bounded by its parser.
 */
function protoKeyPath(value: unknown, at = ''): string | null {
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = protoKeyPath(value[i], `${at}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (Object.hasOwn(value, '__proto__')) return at;
  for (const [key, inner] of Object.entries(value)) {
    const found = protoKeyPath(inner, at === '' ? key : `${at}.${key}`);
    if (found !== null) return found;
  }
  return null;
}

/** A config is a few kilobytes; past this it is refused. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export async function loadConfig(root: string, explicit: string | undefined, cwd: string): Promise<LoadedConfig> {
  const file = explicit !== undefined ? path.resolve(cwd, explicit) : path.join(root, CONFIG_FILE);
  const shown = explicit ?? CONFIG_FILE;
  // A regular file only (a clone's FIFO would hang every command), of a bounded size.
  const read = await readRegularFile(file, { maxBytes: MAX_CONFIG_BYTES, followLinks: true });
  if (!read.ok) {
    if (read.kind === 'missing' && explicit === undefined) return { config: {}, file: null, explicit: false, shown };
    throw new ConfigError(`config ${shown}: ${read.kind === 'missing' ? 'cannot read it (no such file)' : read.reason}`);
  }
  const json = parseJsonText(read.text);
  if (!json.ok) throw new ConfigError(`config ${shown}: not valid JSON (${json.message})`);
  const proto = protoKeyPath(json.value);
  if (proto !== null) throw new ConfigError(`config ${shown}: ${proto || '(top level)'}: the key "__proto__" is not allowed (it names no lane, agent, tier or label)`);
  const parsed = ConfigSchema.safeParse(json.value);
  if (!parsed.success) {
    const [first, ...rest] = parsed.error.issues;
    throw new ConfigError(`config ${describeProblem(shown, first!)}${rest.length > 0 ? ` (and ${rest.length} more problem(s))` : ''}`);
  }
  // Globs are matched against every path an issue names: one past the caps (globProblem) is refused here.
  const globs = [...(parsed.data.serial ?? []).map((g, i) => [`serial[${i}]`, g] as const), ...Object.entries(parsed.data.lanes ?? {}).flatMap(([name, lane]) => (lane.paths ?? []).map((g, i) => [`lanes.${name}.paths[${i}]`, g] as const))];
  for (const [where, glob] of globs) {
    const problem = globProblem(normalisePattern(glob));
    if (problem !== null) throw new ConfigError(`config ${shown}: ${where}: ${problem}`);
  }
  return { config: parsed.data, file, explicit: explicit !== undefined, shown };
}

/** The planner options a config sets (flags are applied on top by the command). */
export function planOptionsFromConfig(config: WavesConfig): PlanOptionsInput {
  const options: PlanOptionsInput = {};
  const d = config.defaults ?? {};
  if (d.top !== undefined) options.top = d.top;
  if (d.waveSize !== undefined) options.waveSize = d.waveSize;
  if (d.maxWaves !== undefined) options.maxWaves = d.maxWaves;
  if (d.granularity !== undefined) options.granularity = d.granularity;
  if (d.contentionDepth !== undefined) options.contentionDepth = d.contentionDepth;
  if (d.inference !== undefined) options.inference = d.inference;
  if (d.inferenceThreshold !== undefined) options.inferenceThreshold = d.inferenceThreshold;
  if (config.lanes) options.lanes = Object.fromEntries(Object.entries(config.lanes).map(([name, lane]) => [name, { paths: lane.paths, keywords: lane.keywords ?? [] }]));
  if (config.serial) options.serial = config.serial;
  if (config.hubs !== undefined) options.hubs = config.hubs;
  if (config.hubThreshold !== undefined) options.hubThreshold = config.hubThreshold;
  if (config.hubMinDependents !== undefined) options.hubMinDependents = config.hubMinDependents;
  if (config.subdivide?.maxFiles !== undefined) options.maxFiles = config.subdivide.maxFiles;
  if (config.subdivide?.maxSubsystems !== undefined) options.maxSubsystems = config.subdivide.maxSubsystems;
  if (config.subdivide?.maxSteps !== undefined) options.maxSteps = config.subdivide.maxSteps;
  if (config.requireAcceptanceCriteria !== undefined) options.requireAcceptanceCriteria = config.requireAcceptanceCriteria;
  if (config.priorityLabels) options.priorityLabels = config.priorityLabels;
  if (config.routing) {
    options.routing = {
      categories: config.routing.categories ?? {},
      tiers: Object.fromEntries(Object.entries(config.routing.tiers).map(([name, tier]) => [name, { manualOnly: tier.manualOnly ?? false }])),
      maxNonDefaultConcurrent: Math.max(1, config.routing.maxNonDefaultConcurrent ?? 1),
    };
  }
  return options;
}
