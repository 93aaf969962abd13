/**
 * The seal of a run record: a copy that waves keeps outside the repository, in its state
 * directory, where an agent confined to its work tree cannot write. The copy in `.dispatch-runs/`
 * is for people and tools; what the harvest trusts — the fence, where the run started, its
 * dispatch, its worktree, the status its supervisor settled — is read from the seal.
 *
 * Where: `$WAVES_STATE_DIR`, else `$XDG_STATE_HOME/waves`, else `~/.local/state/waves`; under it
 * `runs/<hash>/`, the hash of the real path of the runs directory (one folder per repository),
 * each seal a file readable and writable by its owner alone (0600).
 *
 * NOTE: this defends against an agent that rewrites files in its tree (codex's workspace-write
 * sandbox, claude's edit permissions). An agent running as the same user with no sandbox can
 * reach every file of that user, the state directory included.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, realpath, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, InputError, readRegularFile } from '@waves/planner';
import type { RunRecord } from './run-record.js';
import { stateDir } from './state-dir.js';

export { stateDir } from './state-dir.js';

const isInside = (dir: string, file: string) => {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** The folder of the seals of a runs directory (which must exist: its real path names the folder). */
export async function sealDirOf(runsDir: string): Promise<string> {
  const real = await realpath(runsDir);
  const state = stateDir();
  // The repository holds the runs directory; a seal inside it would be as writable as the record.
  const repository = path.dirname(real);
  const realState = await realpath(state).catch(() => state);
  if (isInside(repository, realState)) {
    throw new ConfigError(`the waves state directory ${state} lies inside the repository ${repository}: run records must be sealed outside it (set WAVES_STATE_DIR)`);
  }
  const key = createHash('sha256').update(real).digest('hex').slice(0, 32);
  return path.join(state, 'runs', key);
}

/**
 * The seal of a record file. A runs directory reached through another path (or replaced by a
 * link) has other seals.
 */
export async function sealFileOf(recordFile: string): Promise<string> {
  return path.join(await sealDirOf(path.dirname(recordFile)), path.basename(recordFile));
}

/** The names of the sealed records of a runs directory (none when it has no seal folder). */
export async function sealedNames(runsDir: string): Promise<string[]> {
  const dir = await sealDirOf(runsDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => /^resolve-\d+-\w+\.json$/.test(n)).sort();
}

/** As MAX_RECORD_BYTES: a seal is a copy of a run record. */
const MAX_SEAL_BYTES = 16 * 1024 * 1024;

/** The seal's text, or null when there is none. A seal that is not a regular file is refused. */
export async function readSealText(recordFile: string): Promise<string | null> {
  const file = await sealFileOf(recordFile);
  const stat = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (stat === null) return null;
  if (!stat.isFile()) throw new Error(`the seal ${file} is not a regular file`);
  // Checked again on the open file: nothing swapped in since the lstat is followed or blocks.
  const read = await readRegularFile(file, { maxBytes: MAX_SEAL_BYTES });
  if (!read.ok) throw new Error(`the seal ${file} ${read.reason}`);
  return read.text;
}

/** Writes a seal atomically (a temporary file renamed over it), readable by its owner alone. */
export async function writeSealText(recordFile: string, text: string): Promise<void> {
  const file = await sealFileOf(recordFile);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`the folder of the seals ${path.dirname(file)} cannot be made (${error.code ?? error.message}): something other than a folder stands there; move it away`);
  });
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, file);
}

/**
 * What dispatch fixed for good: once a record is sealed, no later write changes these (a writer
 * that read a rewritten copy from the repository cannot carry the rewrite into the seal).
 */
export const FIXED_AT_DISPATCH = [
  'v', 'id', 'issue', 'wave', 'agent', 'argv', 'cwd', 'model', 'tier', 'leaseIds', 'leaseTtlMs', 'journal', 'log', 'pidFile',
  'worktree', 'timeoutMs', 'startedAt', 'dispatchId', 'scope', 'start', 'passEnv', 'logMaxBytes', 'verify', 'dispatcher', 'setup', 'agentEnv', 'fenceRules',
  'leaseStore', 'leaseEpochs',
] as const satisfies readonly (keyof RunRecord)[];

/** The fields the harvest trusts, as dotted names, each with how to read it from a record. */
const TRUSTED: readonly [string, (r: RunRecord) => unknown][] = [
  ['id', (r) => r.id],
  ['issue.number', (r) => r.issue.number],
  ['wave', (r) => r.wave],
  ['cwd', (r) => r.cwd],
  ['worktree', (r) => r.worktree],
  ['dispatchId', (r) => r.dispatchId],
  ['scope.fence', (r) => r.scope?.fence],
  ['scope.serial', (r) => r.scope?.serial],
  ['start.head', (r) => r.start?.head],
  ['start.dirty', (r) => r.start?.dirty],
  ['start.git', (r) => r.start?.git],
  ['start.refs', (r) => r.start?.refs],
  ['start.flags', (r) => r.start?.flags],
  ['verify', (r) => r.verify],
  ['status', (r) => r.status],
  ['exitCode', (r) => r.exitCode],
  ['witness.commit', (r) => r.witness?.commit],
  ['fence.extensions', (r) => r.fence?.extensions],
];

/** The trusted fields in which the repository's copy differs from the seal. */
export function rewrittenFields(sealed: RunRecord, copy: RunRecord): string[] {
  return TRUSTED.filter(([, read]) => JSON.stringify(read(sealed)) !== JSON.stringify(read(copy))).map(([name]) => name);
}
