/**
 * Adapter: the first-parent history `waves backtest` replays, read with one `git log` for the
 * whole range (names and statuses of the changed files, NUL-separated), plus a few `rev-parse`
 * calls to resolve and check the range. Everything wrong with the range — not a repository, not
 * its top, a ref that names no commit, `--since` off the line of `--until`, an empty range,
 * history a shallow clone does not have — is an error of input (exit code 2) in one line.
 */
import { realpath } from 'node:fs/promises';
import { execaGit } from '@waves/planner';
import { SAFE_GIT_CONFIG, type FileChange, type HistoryCommit } from '@waves/planner';
import { UsageError } from '../errors.js';

export interface HistoryRequest {
  /** As the user named it, for messages. */
  rootArg: string;
  root: string;
  until: string;
  since?: string;
  last?: number;
}

export interface HistoryRange {
  until: string;
  since: string | null;
  /** The parent of the oldest commit of the range: the repository the backlog is planned against. */
  base: string;
  /** First-parent commits, oldest first. */
  commits: HistoryCommit[];
  /** Why the renames of the range are not known, or not all of them (a warning for people). */
  renamesUnknown?: string;
  /** Files the range's commits name that were skipped: their names are not valid UTF-8 (a warning for people). */
  unreadableNames?: string;
}

function unreadableOf(count: number): { unreadableNames?: string } {
  return count === 0 ? {} : { unreadableNames: `${count} file name(s) the range's commits change are not valid UTF-8 and were skipped, as the file listing skips them (rename them)` };
}

/** git with nothing from the repository's config that could change what it prints or run anything. */
function git(root: string, args: readonly string[]) {
  return execaGit([...SAFE_GIT_CONFIG, '-c', 'log.showSignature=false', '-c', 'core.quotepath=off', ...args], gitOptions(root));
}

const gitOptions = (root: string) => ({ cwd: root, stdin: 'ignore', reject: false, maxBuffer: 1024 * 1024 * 1024, stripFinalNewline: false }) as const;

/** git's output as bytes: names in it are decoded one by one (`nulTokens`). */
function gitBytes(root: string, args: readonly string[]) {
  return execaGit([...SAFE_GIT_CONFIG, '-c', 'log.showSignature=false', '-c', 'core.quotepath=off', ...args], { ...gitOptions(root), encoding: 'buffer' });
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

async function checkTop(request: HistoryRequest): Promise<void> {
  const top = await git(request.root, ['rev-parse', '--show-toplevel']);
  if (top.exitCode !== 0) throw new UsageError(`--root ${request.rootArg}: not a git repository (waves backtest replays its history)`);
  const [real, realTop] = await Promise.all([realpath(request.root), realpath(top.stdout.trim())]);
  if (real !== realTop) throw new UsageError(`--root ${request.rootArg}: not the top of its git repository (${top.stdout.trim()}); pass that instead`);
}

async function resolveCommit(root: string, flag: string, ref: string): Promise<string> {
  if (ref.startsWith('-') || ref.trim() === '' || /[\0\n]/.test(ref)) throw new UsageError(`${flag} ${JSON.stringify(ref)}: not a commit`);
  const result = await git(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  const sha = result.stdout.trim();
  if (result.exitCode !== 0 || !SHA.test(sha)) throw new UsageError(`${flag} ${JSON.stringify(ref)}: not a commit of this repository`);
  return sha;
}

const STATUS: Record<string, FileChange> = { A: 'create', D: 'delete' };

/**
 * Parses `git log -z --name-status --format=%x1e%H %P%x1f%s`: a header token per commit (its id,
 * parents and subject; a subject has no NUL), then status and path tokens. A subject may hold any
 * other character, so the header is split at its first separator only.
 */
export function parseLog(stdout: string | Uint8Array): HistoryCommit[] & { unreadableNames?: number } {
  const commits: (HistoryCommit & { files: { path: string; change: FileChange }[] })[] & { unreadableNames?: number } = [];
  const tokens = nulTokens(stdout);
  for (let i = 0; i < tokens.length; i++) {
    const token = (tokens[i] ?? '').replace(/^\n+/, '');
    if (token === '') continue;
    if (token.startsWith('\x1e')) {
      const cut = token.indexOf('\x1f');
      const ids = (cut < 0 ? token.slice(1) : token.slice(1, cut)).trim().split(' ').filter(Boolean);
      const [sha, ...parents] = ids;
      if (!sha || !SHA.test(sha)) throw new Error(`git log: unexpected commit header ${JSON.stringify(token.slice(0, 80))}`);
      commits.push({ sha, parents, subject: cut < 0 ? '' : token.slice(cut + 1), files: [] });
      continue;
    }
    const status = /^([A-Z])\d*$/.exec(token);
    const commit = commits.at(-1);
    const path = tokens[i + 1];
    if (!status || !commit || path === undefined) throw new Error(`git log: unexpected output ${JSON.stringify(token.slice(0, 80))}`);
    // A name that is not UTF-8 is skipped and counted, as the file listing skips it: decoded
    // lossily, two names would become one, and two commits a conflict they never had.
    if (path === null) commits.unreadableNames = (commits.unreadableNames ?? 0) + 1;
    else commit.files.push({ path, change: STATUS[status[1]!] ?? 'edit' });
    i++;
  }
  return commits;
}

/**
 * Parses `git log -z --name-status --diff-filter=R --format=%x1e%H`: per commit, its renames
 * (`R<score>`, the old path, the new path).
 */
export function parseRenames(stdout: string | Uint8Array): Map<string, { from: string; to: string }[]> {
  const out = new Map<string, { from: string; to: string }[]>();
  let current: { from: string; to: string }[] | null = null;
  const tokens = nulTokens(stdout);
  for (let i = 0; i < tokens.length; i++) {
    const token = (tokens[i] ?? '').replace(/^\n+/, '');
    if (token === '') continue;
    if (token.startsWith('\x1e')) {
      const sha = token.slice(1).trim();
      if (!SHA.test(sha)) throw new Error(`git log: unexpected commit header ${JSON.stringify(token.slice(0, 80))}`);
      out.set(sha, (current = []));
      continue;
    }
    const from = tokens[i + 1];
    const to = tokens[i + 2];
    if (!/^R\d*$/.test(token) || current === null || from === undefined || to === undefined) throw new Error(`git log: unexpected output ${JSON.stringify(token.slice(0, 80))}`);
    if (from !== null && to !== null) current.push({ from, to });
    i += 2;
  }
  return out;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const LOSSY_UTF8 = new TextDecoder('utf-8');

/**
 * git's `-z` output split at its NULs, each token decoded on its own: a commit header (which
 * starts with the record separator) lossily — a subject is text for people — and any other token,
 * a status or a path, strictly: null when it is not UTF-8.
 */
function nulTokens(stdout: string | Uint8Array): (string | null)[] {
  if (typeof stdout === 'string') return stdout.split('\0');
  const tokens: (string | null)[] = [];
  for (let start = 0; start <= stdout.length; ) {
    let end = stdout.indexOf(0, start);
    if (end < 0) end = stdout.length;
    const bytes = stdout.subarray(start, end);
    let offset = 0;
    while (bytes[offset] === 10) offset++;
    if (bytes[offset] === 0x1e) tokens.push(LOSSY_UTF8.decode(bytes));
    else {
      try {
        tokens.push(STRICT_UTF8.decode(bytes));
      } catch {
        tokens.push(null);
      }
    }
    start = end + 1;
  }
  return tokens;
}

async function shallowHint(root: string): Promise<string> {
  const shallow = await git(root, ['rev-parse', '--is-shallow-repository']);
  return shallow.stdout.trim() === 'true' ? ' (this clone is shallow: git fetch --unshallow, or --deepen=N, brings the history)' : '';
}

export async function readHistory(request: HistoryRequest): Promise<HistoryRange> {
  const { root } = request;
  await checkTop(request);
  const until = await resolveCommit(root, '--until', request.until);
  const since = request.since !== undefined ? await resolveCommit(root, '--since', request.since) : null;
  if (since !== null) {
    if (since === until) throw new UsageError(`--since ${request.since} and --until ${request.until} are the same commit: the range is empty`);
    const ancestor = await git(root, ['merge-base', '--is-ancestor', since, until]);
    if (ancestor.exitCode !== 0) {
      throw new UsageError(`--since ${request.since} is not an ancestor of --until ${request.until}: no range between them${await shallowHint(root)}`);
    }
  }
  const log = await gitBytes(root, [
    'log',
    '--first-parent',
    '--diff-merges=off',
    '--no-renames',
    '--no-relative',
    '--name-status',
    '-z',
    '--no-color',
    '--format=%x1e%H %P%x1f%s',
    ...(since === null ? ['-n', String(request.last ?? 100)] : []),
    since === null ? until : `${since}..${until}`,
    '--',
  ]);
  if (log.exitCode !== 0) throw new Error(`git log failed: ${LOSSY_UTF8.decode(log.stderr).split('\n')[0]}`);
  const parsed = parseLog(log.stdout);
  const unreadable = parsed.unreadableNames ?? 0;
  const commits = [...parsed].reverse();
  const oldest = commits[0];
  if (!oldest) throw new UsageError(`no commit between --since ${request.since} and --until ${request.until} on the first-parent line`);
  if (oldest.parents.length === 0) {
    // The root commit, or where a shallow clone's history stops: no base to plan against.
    const hint = await shallowHint(root);
    if (hint !== '') {
      throw new UsageError(`the history stops at ${oldest.sha.slice(0, 12)}, ${commits.length} commit(s) back from --until: the range needs its parent${hint}`);
    }
    commits.shift();
    if (commits.length === 0) throw new UsageError(`--until ${request.until} is the repository's first commit: there is no history before it to replay`);
  }
  const base = commits[0]!.parents[0]!;
  // Renames, merges' included (their first-parent diff): a later commit's files followed back to
  // their paths at the base, where the backtest plans. Exact renames are cheap; a bounded limit
  // keeps a huge move from costing minutes.
  const renameLog = (similarity: string) =>
    gitBytes(root, [
      '-c',
      'diff.renameLimit=20000',
      'log',
      '--first-parent',
      '--diff-merges=first-parent',
      `-M${similarity}`,
      '--diff-filter=R',
      '--no-relative',
      '--name-status',
      '-z',
      '--no-color',
      '--format=%x1e%H',
      `${base}..${until}`,
      '--',
    ]);
  let renames = await renameLog('');
  // Inexact renames read the files' contents; exact ones compare object ids only, so a clone
  // missing some blobs (partial, or a mirror without its largest files) still has those.
  let inexactLost: string | null = null;
  if (renames.exitCode !== 0) {
    inexactLost = LOSSY_UTF8.decode(renames.stderr).split('\n')[0]?.replace(/^fatal: /, '') ?? '';
    renames = await renameLog('100%');
  }
  if (renames.exitCode !== 0) {
    // Rename detection reads the files' contents: a clone missing some (partial, or a broken
    // object) still replays, with files judged by the paths their commits name.
    const why = LOSSY_UTF8.decode(renames.stderr).split('\n')[0]?.replace(/^fatal: /, '') ?? '';
    return { until, since, base, commits, ...unreadableOf(unreadable), renamesUnknown: `renames in the range could not be read (${why}): files are judged by the paths their commits name` };
  }
  const renamed = parseRenames(renames.stdout);
  return {
    until,
    since,
    base,
    commits: commits.map((commit) => (renamed.get(commit.sha)?.length ? { ...commit, renames: renamed.get(commit.sha)! } : commit)),
    ...unreadableOf(unreadable),
    ...(inexactLost !== null ? { renamesUnknown: `renames with edits in the range could not be read (${inexactLost}): only files moved unchanged are followed to their paths at the base` } : {}),
  };
}
