/**
 * The GitHub tokens, held in memory only. At the command line's start `takeTokens` moves them out
 * of `process.env` (so that no child waves starts inherits them) and, on Linux, overwrites their
 * values in the process's initial environment block (what `/proc/<pid>/environ` shows another
 * process of the same user, an agent reading its ancestors' included). The code that talks to
 * GitHub, redacts logs or hands a token to an agent named in `agents.<name>.env` asks here.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

/** The variables taken (the same list agents are kept from: agent-env.ts TOKEN_VARIABLES). */
const NAMES = ['GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_ENTERPRISE_TOKEN', 'GH_ENTERPRISE_TOKEN'] as const;

const held = new Map<string, string>();

/** The tokens held: name → value. */
export function heldTokens(): Readonly<Record<string, string>> {
  return Object.fromEntries(held);
}

/** Holds these tokens (the supervisor's, handed over by its dispatch through a pipe). */
export function holdTokens(tokens: Readonly<Record<string, unknown>>): void {
  for (const name of NAMES) {
    const value = tokens[name];
    if (typeof value === 'string' && value !== '') held.set(name, value);
  }
}

/**
 * Takes the token variables out of `env` (default: process.env) into memory, and overwrites them
 * in this process's initial environment block where the system lets it (Linux: /proc/self/mem).
 * Returns whether the block was cleaned (false where it could not be: then `/proc/<pid>/environ`
 * of this process still shows the values it started with).
 */
export function takeTokens(env: NodeJS.ProcessEnv = process.env): boolean {
  for (const name of NAMES) {
    const value = env[name];
    if (typeof value === 'string') {
      if (value !== '') held.set(name, value);
      delete env[name];
    }
  }
  return scrubInitialEnvironment(NAMES);
}

/** Overwrites `NAME=value` of these names in /proc/self's initial environment with 'x' (same length). */
function scrubInitialEnvironment(names: readonly string[]): boolean {
  if (process.platform !== 'linux') return false;
  let fd: number | null = null;
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    // Fields after "(comm)": the 3rd field first; env_start and env_end are the 50th and 51st.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) return false;
    const block = readFileSync('/proc/self/environ');
    let dirty = false;
    let offset = 0;
    const spans: [number, number][] = [];
    while (offset < block.length) {
      let stop = block.indexOf(0, offset);
      if (stop < 0) stop = block.length;
      const entry = block.subarray(offset, stop).toString('latin1');
      const eq = entry.indexOf('=');
      if (eq > 0 && names.includes(entry.slice(0, eq)) && stop > offset + eq + 1) spans.push([offset + eq + 1, stop]);
      offset = stop + 1;
    }
    if (spans.length === 0) return true;
    fd = openSync('/proc/self/mem', 'r+');
    for (const [from, to] of spans) {
      if (start + to > end) continue;
      const filler = Buffer.alloc(to - from, 'x');
      if (writeSync(fd, filler, 0, filler.length, start + from) !== filler.length) return false;
      dirty = true;
    }
    // Checked, not assumed: the block as others now read it holds none of the values.
    const after = readFileSync('/proc/self/environ');
    return dirty && spans.every(([from, to]) => after.subarray(from, to).every((b) => b === 0x78));
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
