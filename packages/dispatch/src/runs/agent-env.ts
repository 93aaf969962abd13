/**
 * The environment waves gives the processes it starts (agents, verification commands): its own,
 * minus the GitHub tokens unless the config names them, plus a marker carrying the run's id. The
 * marker is how waves finds a run's processes again, even one that left its process group
 * (setsid), and how it tells them apart from processes it must never signal.
 */

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
  env[RUN_MARKER] = options.runId;
  return env;
}

/** The values to redact from the logs waves writes: the tokens in waves' own environment (4 characters or more). */
export function secretsOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = TOKEN_VARIABLES.map((name) => env[name]).filter((v): v is string => typeof v === 'string' && v.length >= 4);
  return [...new Set(values)];
}
