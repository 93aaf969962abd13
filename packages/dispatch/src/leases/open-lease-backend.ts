/**
 * Which lease backend is in force, as data a run record can keep (`LeaseStore`), and the backend
 * it opens. The config chooses (`leases.backend`: `journal`, the default, or `git` with
 * `leases.remote`, `leases.ref`, `leases.clockSkew`); a run record names the store its leases were
 * taken in, with the remote's URL as it was at dispatch, so that its supervisor, `waves stop` and
 * the harvest act on that store whatever an agent writes into the repository's config meanwhile.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, execaGit, SAFE_GIT_CONFIG } from '@waves/planner';
import { DEFAULT_CLOCK_SKEW_MS, DEFAULT_LEASE_REF, DEFAULT_LEASE_REMOTE, gitLeaseBackend } from './git-lease-backend.js';
import { redactUrl, remoteUrlProblem } from './git-lease-remote.js';
import { journalBackend } from './journal-backend.js';
import type { LeaseBackend } from './lease-backend.js';

export const LeaseStoreSchema = z.discriminatedUnion('backend', [
  z.object({ backend: z.literal('journal'), journal: z.string() }),
  z.object({
    backend: z.literal('git'),
    /** The remote's name in the config (or the URL given), for messages. */
    remote: z.string(),
    /** The URL git reaches, as resolved at dispatch. */
    url: z.string(),
    ref: z.string(),
    skewMs: z.number().int().nonnegative(),
  }),
]);

export type LeaseStore = z.infer<typeof LeaseStoreSchema>;

export function openLeaseBackend(store: LeaseStore, now: () => Date, options: { timeoutMs?: number } = {}): LeaseBackend {
  if (store.backend === 'journal') return journalBackend(store.journal, now);
  return gitLeaseBackend({ url: store.url, remoteName: store.remote, ref: store.ref, skewMs: store.skewMs, now, ...options });
}

/** The backend of a run record: the store it names, else the journal (records of an older waves). */
export function leaseStoreOf(record: { journal: string; leaseStore?: LeaseStore | undefined }): LeaseStore {
  return record.leaseStore ?? { backend: 'journal', journal: record.journal };
}

/** Why a lease ref is not one waves writes, or null. */
export function leaseRefProblem(ref: string): string | null {
  if (!/^refs\/[A-Za-z0-9._/-]+$/.test(ref)) return 'must be refs/… of letters, digits, ., _, - and /';
  if (ref.split('/').some((part) => part === '' || part.startsWith('.') || part.endsWith('.lock')) || ref.includes('..') || ref.endsWith('/')) return 'is not a valid ref name';
  if (/^refs\/(heads|tags|remotes)\//.test(ref)) return 'must not be a branch, a tag or a remote-tracking ref';
  return null;
}

export interface LeasesConfig {
  backend?: 'journal' | 'git' | undefined;
  remote?: string | undefined;
  ref?: string | undefined;
  skewMs?: number | undefined;
}

/**
 * The store the config chooses. For `git`, the remote's URL is read from the repository's config
 * (`remote.<name>.url`; a URL or a path may be given instead of a name) and checked: only the
 * file, ssh and https transports (see git-lease-remote.ts). A `ConfigError` (exit 2) names what
 * is wrong.
 */
export async function resolveLeaseStore(root: string, journal: string, config: LeasesConfig): Promise<LeaseStore> {
  if ((config.backend ?? 'journal') === 'journal') return { backend: 'journal', journal };
  const remote = config.remote ?? DEFAULT_LEASE_REMOTE;
  const ref = config.ref ?? DEFAULT_LEASE_REF;
  const refProblem = leaseRefProblem(ref);
  if (refProblem !== null) throw new ConfigError(`leases.ref ${JSON.stringify(ref)} ${refProblem}`);
  let url: string | null = null;
  if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(remote)) {
    const found = await execaGit([...SAFE_GIT_CONFIG, 'config', '--get', `remote.${remote}.url`], { cwd: root, reject: false, stdin: 'ignore' });
    if (found.exitCode === 0 && found.stdout.trim() !== '') url = found.stdout.trim();
  }
  if (url === null) {
    if (!/[/:\\]/.test(remote)) throw new ConfigError(`leases.remote: the repository has no remote named ${JSON.stringify(remote)} (git remote -v lists them; a URL may be given instead)`);
    url = remote;
  }
  const problem = remoteUrlProblem(url);
  if (problem !== null) throw new ConfigError(`leases.remote ${JSON.stringify(remote)}: its URL ${redactUrl(url)} ${problem}`);
  // A local path is taken from the repository's root, as git would from there.
  const local = /^file:\/\//i.test(url) ? decodeURIComponent(url.slice('file://'.length)) : !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) && !/^[^/]*:/.test(url) ? path.resolve(root, url) : null;
  if (local !== null) {
    if (!/^file:\/\//i.test(url)) url = local;
    // A push to a local repository runs that repository's hooks, as you: never one inside this
    // repository, where an agent can write (and plant them).
    const [realRoot, realRemote] = await Promise.all([realpath(root).catch(() => root), realpath(local).catch(() => local)]);
    const rel = path.relative(realRoot, realRemote);
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
      throw new ConfigError(`leases.remote ${JSON.stringify(remote)}: ${local} lies inside the repository, where an agent could plant the hooks a push there runs; use a remote outside it`);
    }
  }
  return { backend: 'git', remote, url, ref, skewMs: config.skewMs ?? DEFAULT_CLOCK_SKEW_MS };
}
