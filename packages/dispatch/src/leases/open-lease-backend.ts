/**
 * Which lease backend is in force, as data a run record can keep (`LeaseStore`), and the backend
 * it opens. The config chooses (`leases.backend`: `journal`, the default, or `git` with
 * `leases.remote`, `leases.ref`, `leases.clockSkew`); a run record names the store its leases were
 * taken in, with the remote's URL as it was at dispatch, so that its supervisor, `waves stop` and
 * the harvest act on that store whatever an agent writes into the repository's config meanwhile.
 * A record never keeps a URL's password or token (records are in the work tree, where agents
 * read): it keeps the URL without them and the sha-256 of the full URL, and the full URL is read
 * again from `remote.<name>.url` at use and must have that digest.
 *
 * The repository's own waves.config.json travels with a clone, so, as for its other settings
 * that reach outside the repository, it may only name one of the repository's remotes (`origin`)
 * and a ref under `refs/waves/`: a URL or a path in `leases.remote` is the person's word, in a
 * config named with `--config FILE`. A local remote is never inside the repository, and a push
 * there runs none of its hooks (git-lease-remote.ts, LOCAL_RECEIVE_PACK).
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, execaGit, SAFE_GIT_CONFIG } from '@waves/planner';
import { DEFAULT_CLOCK_SKEW_MS, DEFAULT_LEASE_REF, DEFAULT_LEASE_REMOTE, gitLeaseBackend } from './git-lease-backend.js';
import { isLocalUrl, recordableUrl, redactUrl, remoteUrlProblem } from './git-lease-remote.js';
import { journalBackend } from './journal-backend.js';
import { LeaseRemoteError, type LeaseBackend } from './lease-backend.js';

export const LeaseStoreSchema = z.discriminatedUnion('backend', [
  z.object({ backend: z.literal('journal'), journal: z.string() }),
  z.object({
    backend: z.literal('git'),
    /** The remote's name in the config (or the URL given), for messages. */
    remote: z.string(),
    /** The URL git reaches, as resolved at dispatch — without any password or token (then `urlDigest` is set). */
    url: z.string(),
    ref: z.string(),
    skewMs: z.number().int().nonnegative(),
    /** When `url` had credentials taken out: the sha-256 (hex) of the full URL, read again from `remote.<remote>.url` in `repo` at use. */
    urlDigest: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    /** The repository whose config names the remote (with `urlDigest`). */
    repo: z.string().optional(),
  }),
]);

export type LeaseStore = z.infer<typeof LeaseStoreSchema>;

const digestOf = (url: string) => createHash('sha256').update(url).digest('hex');

/** The URL of a remote by name in a repository's config, or null when it has none. */
async function remoteUrlOf(root: string, name: string): Promise<string | null> {
  const found = await execaGit([...SAFE_GIT_CONFIG, 'config', '--get', `remote.${name}.url`], { cwd: root, reject: false, stdin: 'ignore' });
  return found.exitCode === 0 && found.stdout.trim() !== '' ? found.stdout.trim() : null;
}

export function openLeaseBackend(store: LeaseStore, now: () => Date, options: { timeoutMs?: number } = {}): LeaseBackend {
  if (store.backend === 'journal') return journalBackend(store.journal, now);
  const { urlDigest, repo } = store;
  const resolveUrl =
    urlDigest === undefined
      ? undefined
      : async () => {
          const where = `the lease table ${store.ref} on ${store.remote}`;
          const url = repo === undefined ? null : await remoteUrlOf(repo, store.remote).catch(() => null);
          if (url === null) throw new LeaseRemoteError(`${where}: the remote's URL (${store.url}) cannot be read again from the repository's config (remote.${store.remote}.url), and a run record keeps no credentials`);
          if (digestOf(url) !== urlDigest) throw new LeaseRemoteError(`${where}: remote.${store.remote}.url is no longer the URL the leases were taken at (${store.url}); set it back, or act on the leases from the config that took them`);
          return url;
        };
  return gitLeaseBackend({ url: store.url, remoteName: store.remote, ref: store.ref, skewMs: store.skewMs, now, ...options, ...(resolveUrl ? { resolveUrl } : {}) });
}

/** The backend of a run record: the store it names, else the journal (records of an older waves). */
export function leaseStoreOf(record: { journal: string; leaseStore?: LeaseStore | undefined }): LeaseStore {
  return record.leaseStore ?? { backend: 'journal', journal: record.journal };
}

/** The namespace of the refs a lease table may live in. */
export const LEASE_REF_PREFIX = 'refs/waves/';

/** Why a lease ref is not one waves writes, or null. */
export function leaseRefProblem(ref: string): string | null {
  if (!/^refs\/[A-Za-z0-9._/-]+$/.test(ref)) return 'must be refs/… of letters, digits, ., _, - and /';
  if (ref.split('/').some((part) => part === '' || part.startsWith('.') || part.endsWith('.lock')) || ref.includes('..') || ref.endsWith('/')) return 'is not a valid ref name';
  // A push replaces the ref's content: never a branch, a tag, notes, refs/meta/config, refs/replace/…
  if (ref.startsWith(`${LEASE_REF_PREFIX}seen/`)) return `is under ${LEASE_REF_PREFIX}seen/, where waves keeps what it last read of a table: name another ref under ${LEASE_REF_PREFIX}`;
  if (!ref.startsWith(LEASE_REF_PREFIX)) return `must be under ${LEASE_REF_PREFIX} (a push replaces what the ref holds; waves writes no other ref)`;
  return null;
}

export interface LeasesConfig {
  backend?: 'journal' | 'git' | undefined;
  remote?: string | undefined;
  ref?: string | undefined;
  skewMs?: number | undefined;
  /** The config is the person's own (named with --config), not the repository's: it may give a URL. */
  personal?: boolean | undefined;
}

const REMOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Is `rel` (a path.relative result) inside the folder it is relative to, that folder included? */
function inside(rel: string): boolean {
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The store the config chooses. For `git`, the remote's URL is read from the repository's config
 * (`remote.<name>.url`; a URL or a path may be given instead of a name, in a config of the
 * person's own only) and checked: only the file, ssh and https transports (see
 * git-lease-remote.ts), a ref under `refs/waves/`, never a local remote inside the repository.
 * A `ConfigError` (exit 2) names what is wrong.
 */
export async function resolveLeaseStore(root: string, journal: string, config: LeasesConfig): Promise<LeaseStore> {
  if ((config.backend ?? 'journal') === 'journal') return { backend: 'journal', journal };
  const remote = config.remote ?? DEFAULT_LEASE_REMOTE;
  const shownRemote = JSON.stringify(redactUrl(remote));
  const ref = config.ref ?? DEFAULT_LEASE_REF;
  const refProblem = leaseRefProblem(ref);
  if (refProblem !== null) throw new ConfigError(`leases.ref ${JSON.stringify(ref)} ${refProblem}`);
  let url: string | null = REMOTE_NAME.test(remote) ? await remoteUrlOf(root, remote) : null;
  const byName = url !== null;
  if (url === null) {
    if (!/[/:\\]/.test(remote)) throw new ConfigError(`leases.remote: the repository has no remote named ${shownRemote} (git remote -v lists them; a URL may be given instead, in a config of your own)`);
    if (!config.personal) {
      // The repository's word would choose which repository (any you can push to) gets its ref rewritten.
      throw new ConfigError(`leases.remote ${shownRemote}: a repository's own config may only name one of its remotes (origin…), not a URL or a path; put the URL in a config of your own and name it with --config FILE`);
    }
    url = remote;
  }
  const problem = remoteUrlProblem(url);
  if (problem !== null) throw new ConfigError(`leases.remote ${shownRemote}: its URL ${redactUrl(url)} ${problem}`);
  // A local path is taken from the repository's root, as git would from there.
  if (isLocalUrl(url)) {
    const local = /^file:\/\//i.test(url) ? decodeURIComponent(url.slice('file://'.length)) : path.resolve(root, url);
    if (!/^file:\/\//i.test(url)) url = local;
    // A push to a local repository runs as you: never one inside this repository, where an agent
    // can write (its hooks are off for waves' pushes, but a person's own push there would run them).
    const [realRoot, realRemote] = await Promise.all([realpath(root).catch(() => root), realpath(local).catch(() => local)]);
    if (inside(path.relative(realRoot, realRemote)) || inside(path.relative(path.resolve(root), path.resolve(local)))) {
      throw new ConfigError(`leases.remote ${shownRemote}: ${local} lies inside the repository, where an agent could plant the hooks a push there runs; use a remote outside it`);
    }
  }
  const skewMs = config.skewMs ?? DEFAULT_CLOCK_SKEW_MS;
  const kept = recordableUrl(url);
  if (kept === url) return { backend: 'git', remote, url, ref, skewMs };
  // Credentials in the URL: a record keeps it without them, and the name to read it again by.
  if (!byName) {
    throw new ConfigError(`leases.remote ${shownRemote}: a URL with a password or token would be written into every run record; add it as a remote (git remote add leases URL) and name that, or let a git credential helper hold the secret`);
  }
  return { backend: 'git', remote, url: kept, ref, skewMs, urlDigest: digestOf(url), repo: path.resolve(root) };
}
