/**
 * The git lease backend: the lease table lives on the repository's git remote, in one ref
 * (`refs/waves/leases`), so that every machine that reaches the remote — laptops, a CI runner, a
 * build box — shares it, with no server and no credentials of waves' own (git's are used; waves
 * never reads nor prints them).
 *
 * Algorithm: optimistic concurrency on one ref. A read fetches the ref (`git fetch`) and reads its
 * tree (git-lease-table.ts); a change builds the next commit from that snapshot with plumbing
 * (`hash-object`, `mktree`, `commit-tree`: only the changed fan-out folder, the folder of folders
 * and the root are new trees) and swaps it in with one compare-and-swap,
 * `git push --atomic --porcelain <url> <new>:<ref> --force-with-lease=<ref>:<old>`, `<old>` always
 * pinned to the commit read (empty when there was no table yet). The remote's receive-pack checks
 * the old value under its ref lock, so of two writers that read the same commit exactly one wins;
 * the other re-reads, decides again and retries after a jittered backoff, up to `MAX_ATTEMPTS`,
 * then gives up with `LeaseBusyError` (exit 3). A remote that does not answer is
 * `LeaseRemoteError` (exit 1): waves fails closed, it never acts on a table it could not read.
 *
 * Guarantee: every table in the ref's history was decided on its parent, so no two live leases
 * of different holders in any table overlap (with the clock-skew assumption of git-lease-table.ts).
 * Every write bumps the table's epoch; a lease keeps the epoch it was acquired at (its fencing
 * token), and expired leases are dropped by whoever writes next.
 *
 * Where git runs: never in the person's repository (its index, HEAD and work tree are untouched,
 * and its `.git/config`, which an agent can write, is not read), but in a bare store of waves' own
 * under its state directory, one per remote and ref. git there runs with waves' safe options and
 * only the `file`, `ssh` and `https` transports allowed (`ext::`, `fd::`, `git://` and remote
 * helpers stay refused, whatever a URL or an `insteadOf` says), no terminal prompt, and a deadline.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalLane, execaGit, GitTimeoutError, InputError, SAFE_GIT_CONFIG, type Lease } from '@waves/planner';
import { isLocalUrl, LOCAL_RECEIVE_PACK, redact, redactUrl, remoteUrlProblem, TRANSPORT_CONFIG } from './git-lease-remote.js';
import { stateDir } from '../runs/record-seal.js';
import { decideLanes, LeaseBusyError, refusalOf, LeaseRemoteError, type AcquireResult, type ChangeResult, type GcResult, type LeaseBackend, type LeaseListing } from './lease-backend.js';
import { newLeaseId } from './lease-journal.js';
import {
  fanOutOf,
  holdsForOthers,
  LEASES_DIR,
  leaseText,
  renewable,
  runAndIssueOf,
  TABLE_FILE,
  TableHeaderSchema,
  TableLeaseSchema,
  toLease,
  type TableLease,
} from './git-lease-table.js';

export const DEFAULT_LEASE_REF = 'refs/waves/leases';
export const DEFAULT_LEASE_REMOTE = 'origin';
/** The clock-skew margin when the config names none: machines kept by NTP agree far better. */
export const DEFAULT_CLOCK_SKEW_MS = 60_000;
/** Compare-and-swap attempts before a change gives up as busy. */
export const MAX_ATTEMPTS = 16;
/** The deadline of one fetch or push, unless the caller sets a shorter one. */
export const DEFAULT_REMOTE_TIMEOUT_MS = 30_000;

export interface GitLeaseOptions {
  /** The remote's URL (resolved from `leases.remote`), or as a run record keeps it when `resolveUrl` is given. */
  url: string;
  /**
   * Finds the full URL when `url` had its credentials taken out (a run record never keeps them):
   * called once, before the first fetch; throws `LeaseRemoteError` when it cannot.
   */
  resolveUrl?: () => Promise<string>;
  /** How messages name the remote: its name, or the URL with any credentials taken out. */
  remoteName: string;
  ref: string;
  skewMs: number;
  now: () => Date;
  /** The deadline of each fetch and push (default 30 s). */
  timeoutMs?: number;
  /** The store's folder (default: under waves' state directory). */
  storeDir?: string;
}

function storeOf(options: GitLeaseOptions): string {
  if (options.storeDir) return options.storeDir;
  const key = createHash('sha256').update(`${options.url}\n${options.ref}`).digest('hex').slice(0, 32);
  return path.join(stateDir(), 'leases', `${key}.git`);
}

/** One operation at a time per store in this process (the store's `seen` ref is this process's). */
const queues = new Map<string, Promise<unknown>>();
function serialized<T>(store: string, fn: () => Promise<T>): Promise<T> {
  const before = queues.get(store) ?? Promise.resolve();
  const next = before.then(fn, fn);
  queues.set(store, next.catch(() => undefined));
  return next;
}

/** Parsed lease files by blob id (a blob's content never changes). */
const blobCache = new Map<string, TableLease | string>();

interface TreeEntry {
  mode: string;
  type: string;
  sha: string;
}

interface Snapshot {
  /** The table's commit, or null when the remote has no table yet. */
  commit: string | null;
  epoch: number;
  /** Valid leases by id. */
  leases: Map<string, TableLease>;
  /** Every entry of every fan-out folder, by folder (`ab`) then file name. */
  folders: Map<string, Map<string, TreeEntry>>;
  /** Files of the table that are not leases (torn, edited, foreign), by path: kept until gc. */
  foreign: string[];
  /** The tree of each fan-out folder. */
  folderTrees: Map<string, string>;
}

/** What a change decided on a snapshot: its answer (given the new epoch once written), and what to write. */
type Change<T> = { result: T | ((epoch: number) => T); put?: TableLease[]; remove?: string[]; note: string };

export function gitLeaseBackend(options: GitLeaseOptions): LeaseBackend {
  const { ref, skewMs, now } = options;
  // The URL git reaches: the one given, or the one `resolveUrl` finds before the first fetch.
  let url = options.url;
  let resolved = options.resolveUrl === undefined;
  const store = storeOf(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  const where = `the lease table ${ref} on ${options.remoteName}`;
  const seenRef = `refs/waves/seen/${process.pid}`;
  const env = {
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'waves', GIT_AUTHOR_EMAIL: 'waves@localhost',
    GIT_COMMITTER_NAME: 'waves', GIT_COMMITTER_EMAIL: 'waves@localhost',
    GIT_DIR: store,
  };

  const git = async (args: string[], extra: { input?: string; remote?: boolean } = {}) => {
    try {
      return await execaGit([...TRANSPORT_CONFIG, `--git-dir=${store}`, ...args], {
        cwd: store, env, reject: false, ...(extra.input !== undefined ? { input: extra.input } : { stdin: 'ignore' as const }),
        ...(extra.remote ? { timeoutMs } : {}),
      });
    } catch (error) {
      if (error instanceof GitTimeoutError) throw new LeaseRemoteError(`${where} (${redactUrl(url)}) did not answer within ${Math.round(timeoutMs / 1000)} s`);
      throw error;
    }
  };
  /** `git cat-file --batch` of `ids`, read as bytes (a blob's size counts bytes, whatever it holds). */
  const catBatch = async (ids: readonly string[]): Promise<{ sha: string; type: string; content: string }[]> => {
    try {
      const result = await execaGit([...TRANSPORT_CONFIG, `--git-dir=${store}`, 'cat-file', '--batch'], { cwd: store, env, reject: false, input: `${ids.join('\n')}\n`, encoding: 'buffer' });
      if (result.exitCode !== 0) throw new LeaseRemoteError(`${where}: git cat-file failed in the lease store ${store}: ${firstLine(Buffer.from(result.stderr).toString('utf8'))}`);
      const objects = parseBatch(Buffer.from(result.stdout));
      // Each answer is the object asked for, in order: a blob that fooled the reading would show here.
      if (objects.length !== ids.length || objects.some((o, i) => o.sha !== ids[i] && !ids[i]!.startsWith('refs/'))) throw new LeaseRemoteError(`${where}: git cat-file in the lease store ${store} answered other objects than those asked for`);
      return objects;
    } catch (error) {
      if (error instanceof GitTimeoutError) throw new LeaseRemoteError(`${where} (${redactUrl(url)}) did not answer within ${Math.round(timeoutMs / 1000)} s`);
      throw error;
    }
  };
  const local = async (args: string[], input?: string): Promise<string> => {
    const result = await git(args, input === undefined ? {} : { input });
    if (result.exitCode !== 0) throw new LeaseRemoteError(`${where}: git ${args[0]} failed in the lease store ${store}: ${firstLine(result.stderr)}`);
    return result.stdout;
  };

  const ensureStore = async () => {
    if (!resolved) {
      url = await options.resolveUrl!();
      resolved = true;
    }
    const problem = remoteUrlProblem(url);
    if (problem !== null) throw new LeaseRemoteError(`${where}: the remote URL ${redactUrl(url)} ${problem}`);
    if (existsSync(path.join(store, 'HEAD'))) return;
    await mkdir(path.dirname(store), { recursive: true, mode: 0o700 });
    // Made aside and renamed into place: two processes making it at once both end with one store.
    const aside = `${store}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    const result = await execaGit([...SAFE_GIT_CONFIG, 'init', '--bare', '-q', '--template=', aside], { reject: false, stdin: 'ignore', env: { LC_ALL: 'C' } });
    if (result.exitCode !== 0) throw new LeaseRemoteError(`the lease store ${store} could not be made: ${firstLine(result.stderr)}`);
    await rename(aside, store).catch(async (error: NodeJS.ErrnoException) => {
      await rm(aside, { recursive: true, force: true });
      if (!existsSync(path.join(store, 'HEAD'))) throw new LeaseRemoteError(`the lease store ${store} could not be made: ${error.code ?? error.message}`);
    });
  };

  /** The table as the remote holds it now. */
  const read = async (): Promise<Snapshot> => {
    await ensureStore();
    const fetched = await git(['fetch', '--no-write-fetch-head', '--no-tags', '--no-recurse-submodules', '-q', url, `+${ref}:${seenRef}`], { remote: true });
    if (fetched.exitCode !== 0) {
      if (/couldn't find remote ref/i.test(fetched.stderr)) return { commit: null, epoch: 0, leases: new Map(), folders: new Map(), foreign: [], folderTrees: new Map() };
      throw new LeaseRemoteError(`${where} could not be read from ${redactUrl(url)}: ${redact(firstLine(fetched.stderr), url)}`);
    }
    const listing = await local(['ls-tree', '-r', '-t', '-z', '--full-tree', seenRef]);
    const folderTrees = new Map<string, string>();
    const leaseBlobs = new Map<string, string[]>(); // blob id → its paths in the table (a copy under another name is another path)
    const folders = new Map<string, Map<string, TreeEntry>>();
    const foreign: string[] = [];
    let headerBlob: string | null = null;
    for (const record of listing.split('\0')) {
      if (record === '') continue;
      const tab = record.indexOf('\t');
      const [mode, type, sha] = record.slice(0, tab).split(' ') as [string, string, string];
      const file = record.slice(tab + 1);
      if (file === TABLE_FILE) {
        headerBlob = sha;
        continue;
      }
      const parts = file.split('/');
      if (type === 'tree') {
        if (parts.length === 2 && parts[0] === LEASES_DIR && /^[0-9a-f]{2}$/.test(parts[1]!)) folderTrees.set(parts[1]!, sha);
        continue;
      }
      if (parts.length === 3 && parts[0] === LEASES_DIR && /^[0-9a-f]{2}$/.test(parts[1]!)) {
        const folder = folders.get(parts[1]!) ?? new Map<string, TreeEntry>();
        folder.set(parts[2]!, { mode, type, sha });
        folders.set(parts[1]!, folder);
        // A gitlink, a link or a folder where a lease file goes is not a lease either.
        if (type === 'blob' && mode !== '120000') {
          // Pushed to, never copied: 300,000 paths sharing one blob (red team L3) cost no more than 300,000 blobs.
          const paths = leaseBlobs.get(sha);
          if (paths) paths.push(file);
          else leaseBlobs.set(sha, [file]);
        }
        else if (type !== 'tree') foreign.push(file);
      } else foreign.push(file);
    }
    // The commit and the header are a few hundred bytes as waves writes them: a 400 MB commit message
    // or table.json (red team L8) is refused before it is read, with what to do.
    const own = (await local(['cat-file', '--batch-check=%(objecttype) %(objectsize)'], `${seenRef}\n${headerBlob ?? ''}\n`)).split('\n');
    for (const [i, what, max] of [[0, 'its commit', MAX_COMMIT_BYTES], [1, TABLE_FILE, MAX_LEASE_BYTES]] as const) {
      const size = Number(own[i]?.split(' ')[1]);
      if (Number.isFinite(size) && size > max) {
        throw new LeaseRemoteError(`${where}: ${what} is ${size.toLocaleString('en-US')} bytes, more than any lease table waves writes (${max.toLocaleString('en-US')}): not read; look at it, then delete the ref (git push ${options.remoteName} :${ref}) and acquire again`);
      }
    }
    let wanted = [...leaseBlobs.keys()].filter((sha) => !blobCache.has(sha));
    // A lease file is a few hundred bytes: a bigger blob (a push of 200 MB) is no lease, and is never read.
    if (wanted.length > 0) {
      const sizes = (await local(['cat-file', '--batch-check=%(objectname) %(objectsize)'], `${wanted.join('\n')}\n`)).split('\n');
      const big = new Set(sizes.map((line) => line.split(' ')).filter(([, size]) => !(Number(size) <= MAX_LEASE_BYTES)).map(([sha]) => sha));
      for (const sha of big) blobCache.set(sha!, 'not a lease');
      wanted = wanted.filter((sha) => !big.has(sha));
    }
    const objects = await catBatch([seenRef, ...(headerBlob ? [headerBlob] : []), ...wanted]);
    const commit = objects[0]?.sha ?? null;
    if (commit === null || objects[0]!.type !== 'commit') throw new LeaseRemoteError(`${where}: the fetched table is not a commit`);
    let epoch = 0;
    let rest = objects.slice(1);
    if (headerBlob) {
      const header = TableHeaderSchema.safeParse(safeJson(rest[0]?.content ?? ''));
      // NOTE: an epoch restarted from 0 would repeat fencing tokens: an unreadable header is an error, never guessed.
      if (!header.success) throw new LeaseRemoteError(`${where}: ${TABLE_FILE} at ${commit.slice(0, 12)} is not a lease table header`);
      epoch = header.data.epoch;
      rest = rest.slice(1);
    }
    for (const object of rest) {
      const parsed = TableLeaseSchema.safeParse(safeJson(object.content));
      blobCache.set(object.sha, parsed.success ? parsed.data : 'not a lease');
    }
    if (blobCache.size > 50_000) blobCache.clear();
    const leases = new Map<string, TableLease>();
    // Each path judged on its own: a lease at its own place counts, whatever other paths share its blob.
    for (const [sha, files] of leaseBlobs) {
      const lease = blobCache.get(sha);
      for (const file of files) {
        const name = path.posix.basename(file);
        if (typeof lease === 'object' && name === `${lease.id}.json` && fanOutOf(lease.id) === file.split('/')[1]) leases.set(lease.id, lease);
        else foreign.push(file);
      }
    }
    return { commit, epoch, leases, folders, foreign, folderTrees };
  };

  /** Writes the next table from `snap` and swaps it in: true when the swap won, false when another writer won, `locked` (git's line) when the remote's ref lock was taken. */
  const write = async (snap: Snapshot, put: readonly TableLease[], remove: ReadonlySet<string>, epoch: number, note: string): Promise<boolean | { locked: string }> => {
    const folders = new Map([...snap.folders].map(([k, v]) => [k, new Map(v)] as const));
    const touched = new Set<string>();
    for (const id of remove) {
      const fan = fanOutOf(id);
      if (folders.get(fan)?.delete(`${id}.json`)) touched.add(fan);
    }
    for (const file of snap.foreign) {
      const [top, fan, name] = file.split('/');
      if (top === LEASES_DIR && fan !== undefined && name !== undefined && remove.has(`foreign:${file}`) && folders.get(fan)?.delete(name)) touched.add(fan);
    }
    // Each lease file as its readers will judge it: one they would skip holds nothing, and must never be answered `acquired`.
    for (const lease of put) {
      const parsed = TableLeaseSchema.safeParse(safeJson(leaseText(lease)));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new InputError(`${where}: refused to write lease ${lease.id}, which its readers would skip (${issue ? `${issue.path.join('.') || 'lease'}: ${issue.message}` : 'invalid'})`);
      }
    }
    // The new files: the header and each lease put, written in one hash-object.
    const texts = [`${JSON.stringify({ v: 1, epoch })}\n`, ...put.map(leaseText)];
    const tmp = path.join(store, 'waves-tmp', `${process.pid}-${randomBytes(4).toString('hex')}`);
    await mkdir(tmp, { recursive: true });
    let blobs: string[];
    try {
      const files = texts.map((_, i) => path.join(tmp, `${i}.json`));
      await Promise.all(texts.map((text, i) => writeFile(files[i]!, text)));
      blobs = (await local(['hash-object', '-w', '--no-filters', '--stdin-paths'], `${files.join('\n')}\n`)).trim().split('\n');
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    put.forEach((lease, i) => {
      const fan = fanOutOf(lease.id);
      const folder = folders.get(fan) ?? new Map<string, TreeEntry>();
      folder.set(`${lease.id}.json`, { mode: '100644', type: 'blob', sha: blobs[i + 1]! });
      folders.set(fan, folder);
      touched.add(fan);
    });
    const mktree = async (entries: Iterable<[string, TreeEntry]>) =>
      (await local(['mktree', '-z'], [...entries].map(([name, e]) => `${e.mode} ${e.type} ${e.sha}\t${name}\0`).join(''))).trim();
    const folderTrees = new Map<string, string>();
    for (const [fan, sha] of snap.folderTrees) if (!touched.has(fan)) folderTrees.set(fan, sha);
    for (const fan of touched) {
      const entries = folders.get(fan)!;
      if (entries.size > 0) folderTrees.set(fan, await mktree(entries));
    }
    const rootEntries: [string, TreeEntry][] = [[TABLE_FILE, { mode: '100644', type: 'blob', sha: blobs[0]! }]];
    if (folderTrees.size > 0) rootEntries.push([LEASES_DIR, { mode: '040000', type: 'tree', sha: await mktree([...folderTrees].map(([fan, sha]) => [fan, { mode: '040000', type: 'tree', sha }])) }]);
    const root = await mktree(rootEntries);
    const commit = (await local(['commit-tree', root, ...(snap.commit ? ['-p', snap.commit] : []), '-m', `waves leases: epoch ${epoch}\n\n${note}`])).trim();
    // A local remote's hooks never run (LOCAL_RECEIVE_PACK); a server's do, by design.
    const receivePack = isLocalUrl(url) ? [`--receive-pack=${LOCAL_RECEIVE_PACK}`] : [];
    let pushed: Awaited<ReturnType<typeof git>>;
    try {
      pushed = await git(['push', '--atomic', '--porcelain', '--no-verify', ...receivePack, url, `${commit}:${ref}`, `--force-with-lease=${ref}:${snap.commit ?? ''}`], { remote: true });
    } catch (error) {
      if (error instanceof LeaseRemoteError) return landedAfterAll(commit, error.message, note);
      throw error;
    }
    const status = pushed.stdout.split('\n').find((line) => line.endsWith(`:${ref}`) || line.includes(`:${ref}\t`));
    if (status !== undefined && pushed.exitCode === 0 && !status.startsWith('!')) return true;
    // Lost to another writer: refused before the swap (the advertised ref moved), or by the remote
    // under its ref lock (another receive-pack updated it first, or holds the lock right now).
    const why = status?.split('\t').slice(2).join(' ') || firstLine(pushed.stderr);
    if (status?.startsWith('!') && LOST_SWAP.test(status)) {
      // The remote says why on stderr only (`cannot lock ref '…': Unable to create '….lock': File exists.`).
      const lockLine = pushed.stderr.split('\n').find((line) => REF_LOCKED.test(line));
      return lockLine !== undefined ? { locked: redact(lockLine.replace(/^remote:\s*(?:error:\s*)?/, '').trim(), url) } : false;
    }
    return landedAfterAll(commit, `${where} could not be written to ${redactUrl(url)}: ${redact(why, url)}`, note);
  };

  /**
   * After a push that failed or did not answer: the remote may have applied the swap and lost its
   * answer (a link that stalls once the server committed). The ref is read again; if it is the new
   * commit or descends from it, the change was made (a retry would take a second lease). If it
   * cannot be read either, the change may have been made, and the error says which.
   */
  const landedAfterAll = async (commit: string, problem: string, note: string): Promise<true> => {
    let landed: boolean | null = null;
    try {
      const fetched = await git(['fetch', '--no-write-fetch-head', '--no-tags', '--no-recurse-submodules', '-q', url, `+${ref}:${seenRef}`], { remote: true });
      if (fetched.exitCode === 0) landed = (await git(['merge-base', '--is-ancestor', commit, seenRef])).exitCode === 0;
    } catch (error) {
      if (!(error instanceof LeaseRemoteError)) throw error;
    }
    if (landed === true) return true;
    if (landed === false) throw new LeaseRemoteError(problem);
    throw new LeaseRemoteError(`${problem}; it could not be read again either, so the change may have been made (${note}): waves lease list shows it once the remote answers`);
  };

  /** Drops the `seen` refs of processes that are gone (each process fetches into its own). */
  const pruneSeen = async () => {
    await ensureStore();
    const refs = (await local(['for-each-ref', '--format=%(refname)', 'refs/waves/seen/'])).split('\n').filter(Boolean);
    const dead = refs.filter((name) => {
      const pid = Number(name.slice('refs/waves/seen/'.length));
      if (!Number.isSafeInteger(pid) || pid === process.pid) return false;
      try {
        process.kill(pid, 0);
        return false;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ESRCH';
      }
    });
    if (dead.length > 0) await local(['update-ref', '--stdin'], dead.map((name) => `delete ${name}\n`).join(''));
  };

  /** Reads, decides and swaps, again and again while another writer wins, up to the bound. */
  const change = <T>(decide: (snap: Snapshot, at: number) => Change<T>): Promise<T> =>
    serialized(store, async () => {
      // Whether every attempt found the remote's ref lock held (none lost a swap to a write).
      let locked: string | null = null;
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const snap = await read();
        const at = now().getTime();
        const decided = decide(snap, at);
        const remove = new Set(decided.remove ?? []);
        const put = decided.put ?? [];
        if (put.length === 0 && remove.size === 0) return answer(decided.result, snap.epoch);
        // Whoever writes drops what expired (with the margin).
        for (const lease of snap.leases.values()) if (!holdsForOthers(lease, at, skewMs)) remove.add(lease.id);
        const epoch = snap.epoch + 1;
        // Past 2^53−1 the header and the new lease's token are no integer a reader takes: every command would fail on it, gc included.
        if (!Number.isSafeInteger(epoch)) {
          throw new LeaseRemoteError(`${where}: its epoch is ${snap.epoch}, the largest a fencing token can be (2^53-1), so no table after it can be read and nothing was written; waves never counts that far — if no run holds a lease, delete the ref on the remote (git push <remote> :${ref}) and the epoch restarts at 1`);
        }
        const stamped = put.map((lease) => (lease.epoch === 0 ? { ...lease, epoch } : lease));
        const wrote = await write(snap, stamped, remove, epoch, decided.note);
        if (wrote === true) return answer(decided.result, epoch);
        locked = wrote === false ? null : attempt === 0 || locked !== null ? wrote.locked : null;
        await sleep(Math.min(1_500, 25 * 2 ** attempt) * (0.5 + Math.random()));
      }
      // A lock no writer let go of in 15 s is no contention: a git on the remote died holding it.
      if (locked !== null) {
        throw new LeaseRemoteError(`${where}: the remote's lock on ${ref} stayed taken through ${MAX_ATTEMPTS} attempts (${locked}): a git process there holds it, or one that died left it; remove that .lock file on the remote if nothing is running there`);
      }
      throw new LeaseBusyError(`${where}: ${MAX_ATTEMPTS} attempts to change it lost to other writers; try again`);
    });

  const liveOf = (snap: Snapshot, at: number) => [...snap.leases.values()].filter((lease) => holdsForOthers(lease, at, skewMs));

  return {
    kind: 'git',
    where,
    list: () =>
      serialized(store, async (): Promise<LeaseListing> => {
        const snap = await read();
        const at = now().getTime();
        return {
          leases: liveOf(snap, at).sort((a, b) => a.epoch - b.epoch || a.id.localeCompare(b.id)).map(toLease),
          warnings: foreignWarnings(where, snap.foreign),
        };
      }),
    acquire(lanes, request) {
      const canonical = lanes.map(canonicalLane);
      return change<AcquireResult[]>((snap, at) => {
        const active: Lease[] = liveOf(snap, at).map(toLease);
        const verdict = decideLanes(active, canonical, request.holder, request.rules);
        if (verdict.status === 'refused') return { result: [refusalOf(verdict)], note: '' };
        const acquired = new Date(at).toISOString();
        const expires = new Date(at + request.ttlMs).toISOString();
        const { run, issue } = runAndIssueOf(request.holder);
        // epoch 0: stamped with the table's next epoch when written.
        const put: TableLease[] = canonical.map((lane) => ({ v: 1, id: newLeaseId(), path: lane, holder: request.holder, run, issue, acquired, expires, epoch: 0 }));
        const result = (epoch: number): AcquireResult[] => put.map((lease) => ({ status: 'acquired', id: lease.id, lane: lease.path, holder: lease.holder, until: expires, epoch }));
        return { result, put, note: `acquire ${canonical.join(', ')} for ${request.holder}` };
      });
    },
    release(ids) {
      return change<ChangeResult[]>((snap) => {
        const results: ChangeResult[] = ids.map((id) => {
          const lease = snap.leases.get(id);
          return lease ? { status: 'done', lease: toLease(lease) } : { status: 'not-active', id };
        });
        const remove = ids.filter((id) => snap.leases.has(id));
        return { result: results, remove, note: `release ${remove.join(', ')}` };
      });
    },
    renew(ids, ttlMs) {
      return change<ChangeResult[]>((snap, at) => {
        const put: TableLease[] = [];
        const results: ChangeResult[] = ids.map((id) => {
          const lease = snap.leases.get(id);
          // An ended lease stays ended: another holder may have been granted its lane meanwhile.
          if (!lease || !renewable(lease, at) || !holdsForOthers(lease, at, skewMs)) return { status: 'not-active', id };
          const renewed = { ...lease, expires: new Date(Math.max(Date.parse(lease.expires), at + ttlMs)).toISOString() };
          put.push(renewed);
          return { status: 'done', lease: toLease(renewed) };
        });
        return { result: results, put, note: `renew ${put.map((l) => l.id).join(', ')}` };
      });
    },
    async gc() {
      await pruneSeen();
      return change<GcResult>((snap, at) => {
        const expired = [...snap.leases.values()].filter((lease) => !holdsForOthers(lease, at, skewMs));
        const foreign = snap.foreign.map((file) => `foreign:${file}`);
        return { result: { dropped: expired.map(toLease), foreign: [...snap.foreign].sort() }, remove: [...expired.map((l) => l.id), ...foreign], note: `gc ${expired.length} expired, ${foreign.length} foreign` };
      });
    },
  };
}

/** How git says a compare-and-swap push lost to another writer (LC_ALL=C). */
/** A push refused because the remote's ref lock is taken (by a receive-pack now, or left by a dead one). */
const REF_LOCKED = /cannot lock ref|\.lock'?:? File exists/i;

const LOST_SWAP = /\[rejected\]|stale info|fetch first|non-fast-forward|already exists|atomic transaction failed|failed to (?:update|lock) ref|cannot lock ref|incorrect old value|unable to lock/;

function answer<T>(result: T | ((epoch: number) => T), epoch: number): T {
  return typeof result === 'function' ? (result as (epoch: number) => T)(epoch) : result;
}

/** The largest blob read as a lease file (waves writes a few hundred bytes). */
const MAX_LEASE_BYTES = 16 * 1024;
/** The largest commit of the table read: waves writes a few hundred bytes (a tree, parents, a line). */
const MAX_COMMIT_BYTES = 64 * 1024;

function parseBatch(buffer: Buffer): { sha: string; type: string; content: string }[] {
  // Sizes are bytes: the output is sliced as bytes, and only each object's own bytes become its text.
  const objects: { sha: string; type: string; content: string }[] = [];
  let at = 0;
  while (at < buffer.length) {
    const end = buffer.indexOf(10, at);
    if (end < 0) break;
    const header = buffer.subarray(at, end).toString('utf8');
    const [sha, type, size] = header.split(' ');
    if (type === 'missing' || size === undefined) {
      objects.push({ sha: sha ?? '', type: 'missing', content: '' });
      at = end + 1;
      continue;
    }
    const length = Number(size);
    objects.push({ sha: sha!, type: type!, content: buffer.subarray(end + 1, end + 1 + length).toString('utf8') });
    at = end + 1 + length + 1;
  }
  return objects;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function firstLine(text: string): string {
  return text.split('\n').map((l) => l.replace(/^(fatal|error): /, '').trim()).find((l) => l !== '') ?? 'no answer';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One line per file that is not a lease, for the first few; then one line for the rest (a table of 40,000 such files printed 40,000 lines). */
function foreignWarnings(where: string, foreign: readonly string[]): string[] {
  const shown = foreign.slice(0, FOREIGN_SHOWN).map((file) => `${where}: ${file} is not a lease (torn, edited or foreign), skipped`);
  if (foreign.length > FOREIGN_SHOWN) shown.push(`${where}: ${foreign.length - FOREIGN_SHOWN} more file(s) that are not leases, skipped (waves lease gc drops them)`);
  return shown;
}

/** Files that are not leases named one by one in the warnings. */
const FOREIGN_SHOWN = 5;
