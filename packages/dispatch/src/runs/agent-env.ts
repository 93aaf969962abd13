/**
 * The environment waves gives the processes it starts (agents, verification commands): its own,
 * minus the GitHub tokens unless the config names them, plus a marker carrying the run's id. The
 * marker is how waves finds a run's processes again, even one that left its process group
 * (setsid), and how it tells them apart from processes it must never signal.
 */
import { heldTokens } from './token-holder.js';

/** Tokens waves reads for GitHub: kept from agents and verification unless passed through by name. */
export const TOKEN_VARIABLES = ['GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_ENTERPRISE_TOKEN', 'GH_ENTERPRISE_TOKEN'] as const;

/** `WAVES_RUN=<run id>` in the environment of every process of a run. */
export const RUN_MARKER = 'WAVES_RUN';

export function markerEntry(runId: string): string {
  return `${RUN_MARKER}=${runId}`;
}

export interface ChildEnvOptions {
  /** Names of token variables to keep (`agents.<name>.env`); every other variable is kept anyway. */
  passThrough?: readonly string[];
  /** The run id to mark the process with. */
  runId: string;
}

export function childEnvironment(base: Readonly<Record<string, string | undefined>>, options: ChildEnvOptions): Record<string, string> {
  const keep = new Set(options.passThrough ?? []);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if ((TOKEN_VARIABLES as readonly string[]).includes(name) && !keep.has(name)) continue;
    env[name] = value;
  }
  // A token passed through that waves holds in memory only (token-holder.ts), not in `base`.
  const held = heldTokens();
  for (const name of keep) if ((TOKEN_VARIABLES as readonly string[]).includes(name) && env[name] === undefined && held[name] !== undefined) env[name] = held[name];
  env[RUN_MARKER] = options.runId;
  return env;
}

/** `env` without the token variables: the environment of a supervisor (its tokens come through a pipe). */
export function withoutTokens(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !(TOKEN_VARIABLES as readonly string[]).includes(name)) out[name] = value;
  return out;
}

/** The tokens of `env` and those held in memory (token-holder.ts): name → value. */
export function tokensOf(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = { ...heldTokens() };
  for (const name of TOKEN_VARIABLES) {
    const value = env[name];
    if (typeof value === 'string' && value !== '') out[name] = value;
  }
  return out;
}

/** The values to redact from the logs waves writes: the tokens in waves' environment or held in memory (4 characters or more). */
export function secretsOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = Object.values(tokensOf(env)).filter((v) => v.length >= 4);
  return [...new Set(values)];
}
