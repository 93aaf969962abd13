/**
 * The leases of a run, found by name: a dispatch takes each run's leases in the run's own name,
 * `<holder>/<clone>/<run id>`, so the lease table says which run holds what whatever its record lists —
 * the record may not list them yet (the dispatch was killed right after it took them), or may be
 * gone. And the fencing check: whether a run's leases are still held, each with the token it
 * was acquired with.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { hostname } from 'node:os';
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { execaGit, SAFE_GIT_CONFIG, type Lease } from '@waves/planner';
import type { LeaseBackend } from '../leases/lease-backend.js';
import type { RunRecord } from './run-record.js';

const RUN_HOLDER = /\/(?:([0-9a-f]{8})\/)?(resolve-\d+-\d{8}T\d{9}Z)$/;

/** The run a lease holder names (`alice@host/3fa2c1d0/resolve-101-20261129T120000123Z`), or null for another holder. */
export function runOfHolder(holder: string): string | null {
  return RUN_HOLDER.exec(holder)?.[2] ?? null;
}

/** The clone a run's lease holder names (`3fa2c1d0`), or null when it names none (a person's lease, an older waves). */
export function cloneOfHolder(holder: string): string | null {
  return RUN_HOLDER.exec(holder)?.[1] ?? null;
}

/** The file in a work tree's git directory that holds its random identity (made by its first dispatch). */
export const CLONE_ID_FILE = 'waves-clone-id';

/**
 * This clone among all that share a lease table: a hash of the host's name, the top of the work
 * tree its runs are dispatched from (where their records are: a linked worktree of the same clone
 * keeps its own, so it is another), and the random identity its first dispatch wrote into its git
 * directory (`waves-clone-id`; containers with one fixed host name and one checkout path differ
 * by it). Run ids are timestamps, and two clones can start the same issue in the same millisecond:
 * with the tag in its name a run's leases are never taken for another's, and a clone never
 * releases, as an orphan of its own, a lease another clone's run holds. `create`: make the
 * identity when there is none (dispatch, before any run starts: a run's harvest reports changes
 * under `.git/` made while it ran); without it, a clone that never dispatched has none, and no runs.
 */
export async function cloneTag(root: string, options: { create?: boolean } = {}): Promise<string> {
  const asked = await execaGit([...SAFE_GIT_CONFIG, 'rev-parse', '--show-toplevel', '--absolute-git-dir'], { cwd: root, reject: false, stdin: 'ignore' });
  const [top, gitDir] = asked.exitCode === 0 ? asked.stdout.split('\n').map((line) => line.trim()) : [];
  const dir = top ? top : path.resolve(root);
  const real = await realpath(dir).catch(() => dir);
  const id = gitDir ? await cloneIdentity(path.join(gitDir, CLONE_ID_FILE), options.create === true) : '';
  return createHash('sha256').update(`${hostname()}\0${real}\0${id}`).digest('hex').slice(0, 8);
}

/** The random identity in `file` (at most 64 bytes of it), made first when asked and absent; '' when there is none. */
async function cloneIdentity(file: string, create: boolean): Promise<string> {
  const read = async () => {
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
    if (handle === null) return null;
    try {
      if (!(await handle.stat()).isFile()) return '';
      const buffer = Buffer.alloc(64);
      const { bytesRead } = await handle.read(buffer, 0, 64, 0);
      return buffer.subarray(0, bytesRead).toString('utf8').trim();
    } finally {
      await handle.close();
    }
  };
  const found = await read();
  if (found !== null || !create) return found ?? '';
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600).catch(() => null);
  if (handle === null) return (await read()) ?? ''; // another dispatch made it first, or the git directory is read-only
  const id = randomBytes(16).toString('hex');
  try {
    await handle.writeFile(`${id}\n`);
  } finally {
    await handle.close();
  }
  return id;
}

/**
 * Whether a lease holder is a run of this clone: its tag. A run-shaped name without one (a
 * person's lease named like a run, or a run of an older waves) is no clone's to release: it
 * expires, or `waves lease release --force ID` frees it.
 */
function ofThisClone(holder: string, tag: string): boolean {
  return cloneOfHolder(holder) === tag;
}

/** The active leases held in the name of some run of this clone, by run id. */
export function leasesByRun(leases: readonly Lease[], tag: string): Map<string, Lease[]> {
  const byRun = new Map<string, Lease[]>();
  for (const lease of leases) {
    const run = runOfHolder(lease.holder);
    if (run !== null && ofThisClone(lease.holder, tag)) byRun.set(run, [...(byRun.get(run) ?? []), lease]);
  }
  return byRun;
}

/** Releases every active lease held in the name of this run of this clone; returns them. */
export async function releaseOwnLeases(backend: LeaseBackend, runId: string, tag: string): Promise<Lease[]> {
  const own = (await backend.list()).leases.filter((l) => runOfHolder(l.holder) === runId && ofThisClone(l.holder, tag));
  if (own.length > 0) await backend.release(own.map((l) => l.id));
  return own;
}

/**
 * Every lease of a run and the fencing token each was taken with: the planned ones (`leaseIds`,
 * `leaseEpochs`) and those of the paths its live fence added while it ran (`fence.extensions`).
 */
export function runLeasesOf(record: Pick<RunRecord, 'leaseIds' | 'leaseEpochs' | 'fence'>): { ids: string[]; epochs: Record<string, number> } {
  const extensions = (record.fence?.extensions ?? []).filter((e): e is typeof e & { leaseId: string } => e.leaseId !== null);
  const ids = [...record.leaseIds, ...extensions.map((e) => e.leaseId).filter((id) => !record.leaseIds.includes(id))];
  const epochs: Record<string, number> = { ...(record.leaseEpochs ?? {}) };
  for (const e of extensions) if (e.epoch !== undefined) epochs[e.leaseId] = e.epoch;
  return { ids, epochs };
}

/**
 * Why a run's leases are not all held now with the fencing token each was acquired with (the
 * epoch the record keeps), or null when they are. Pure: `live` is one snapshot of the table.
 */
export function fenceProblem(live: readonly Lease[], ids: readonly string[], epochs: Readonly<Record<string, number>> | undefined, now: number): string | null {
  const byId = new Map(live.map((lease) => [lease.id, lease]));
  for (const id of ids) {
    const lease = byId.get(id);
    if (!lease) return `lease ${id} is no longer held`;
    if (Date.parse(lease.until) <= now) return `lease ${id} on ${lease.lane} expired at ${lease.until}`;
    const epoch = epochs?.[id];
    if (epoch !== undefined && lease.epoch !== epoch) return `lease ${id} on ${lease.lane} carries fencing token ${lease.epoch ?? 'none'}, not ${epoch}`;
  }
  return null;
}
