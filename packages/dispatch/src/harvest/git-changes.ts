/**
 * What git says a run changed: the paths that differ between a base commit and the work tree —
 * committed, staged, unstaged and untracked (ignored files excepted) — and the snapshot of a
 * work tree's uncommitted files taken before agents start in it, so that a harvest without
 * worktrees does not blame an agent for edits that were there before.
 *
 * Every git call runs with the planner's SAFE_GIT_CONFIG (hooks and fsmonitor off, no replace
 * refs, never into a nested repository): an agent can write `.git/hooks` or the config, and what
 * git then runs would run as the person, outside any sandbox the agent had.
 */
import { mkdtemp, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execaGit } from '@waves/planner';
import { SAFE_GIT_CONFIG, type ChangedPath } from '@waves/planner';
import { lstatInTree } from './path-links.js';
import { baseExcludeText } from './base-ignores.js';

/** waves' own state, never an agent's work while untracked. */
const OWN_STATE = /^(?:\.waves|\.dispatch-runs)(?:\/|$)/;

export class GitError extends Error {}

/**
 * What every git call of dispatch and harvest starts with: paths always literal (a file an agent
 * named `:(glob)*` stays one file, never a pattern that adds others), then the planner's
 * SAFE_GIT_CONFIG (see git-options.ts there: no hooks, no fsmonitor, no replace refs, no
 * recursion into nested repositories).
 */
export const GIT_OPTIONS: readonly string[] = ['--literal-pathspecs', ...SAFE_GIT_CONFIG];

/** Why git did not start at all (E2BIG: arguments too long), when it printed nothing. */
function spawnFailure(result: { code?: string; shortMessage?: string; message?: string }): string {
  if (result.code === 'E2BIG') return 'E2BIG: its arguments are longer than the system allows';
  return result.code ?? result.shortMessage ?? result.message ?? 'it did not start';
}

/** Runs git with waves' options. */
export async function git(cwd: string, args: readonly string[], input?: string): Promise<string> {
  const result = await execaGit([...GIT_OPTIONS, ...args], {
    cwd,
    reject: false,
    stripFinalNewline: false,
    ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
  });
  if (result.exitCode !== 0) {
    const why = (result.stderr || result.stdout || spawnFailure(result)).trim().split('\n')[0] ?? '';
    throw new GitError(`git ${args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? ''} in ${cwd} failed: ${why}`);
  }
  return result.stdout;
}

/** Runs git with waves' options; its output as bytes (a file's content). */
export async function gitBytes(cwd: string, args: readonly string[]): Promise<Buffer> {
  const result = await execaGit([...GIT_OPTIONS, ...args], { cwd, reject: false, stdin: 'ignore', encoding: 'buffer', stripFinalNewline: false });
  if (result.exitCode !== 0) {
    const why = (result.stderr ? Buffer.from(result.stderr).toString('utf8') : spawnFailure(result)).trim().split('\n')[0] ?? '';
    throw new GitError(`git ${args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? ''} in ${cwd} failed: ${why}`);
  }
  return Buffer.from(result.stdout);
}

/** The commit HEAD is at, or null in a repository without commits. */
export async function headCommit(cwd: string): Promise<string | null> {
  const result = await execaGit([...GIT_OPTIONS, 'rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd, reject: false, stdin: 'ignore' });
  return result.exitCode === 0 ? result.stdout.trim() : null;
}

/**
 * Where `dir` stands in git: `top` when it is the top of a work tree, `inside` (with that top)
 * when it lies within one, `outside` when git knows no repository there.
 */
export async function workTreeOf(dir: string): Promise<{ kind: 'top' } | { kind: 'inside'; top: string } | { kind: 'outside' }> {
  const result = await execaGit([...GIT_OPTIONS, 'rev-parse', '--show-toplevel'], { cwd: dir, reject: false, stdin: 'ignore' });
  if (result.exitCode !== 0) return { kind: 'outside' };
  const top = result.stdout.trim();
  const [a, b] = await Promise.all([realpath(top).catch(() => top), realpath(dir).catch(() => dir)]);
  return a === b ? { kind: 'top' } : { kind: 'inside', top };
}

export async function currentBranch(cwd: string): Promise<string | null> {
  const result = await execaGit([...GIT_OPTIONS, 'symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd, reject: false, stdin: 'ignore' });
  return result.exitCode === 0 ? result.stdout.trim() : null;
}

/** The empty tree of this repository's hash algorithm: the base of a repository without commits. */
async function emptyTree(cwd: string): Promise<string> {
  return (await git(cwd, ['hash-object', '-t', 'tree', '--stdin'], '')).trim();
}

function splitZ(text: string): string[] {
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/**
 * Every path that differs between `base` (a commit, or null for none) and the work tree of `cwd`,
 * untracked files included; renames among tracked files are found by content. Untracked files
 * are hidden only by the `.gitignore` files of `base` (base-ignores.ts), never by one the run
 * wrote: `.git/info/exclude` and the person's `core.excludesFile` are not the repository's, and an
 * agent can write the first, as it can write a `.gitignore` that ignores itself. A gitlink is
 * compared by the commit it records (`--ignore-submodules=dirty`): git never runs a status inside
 * the nested repository, which would run that repository's own filters.
 */
export async function changesSince(cwd: string, base: string | null): Promise<ChangedPath[]> {
  const from = base ?? (await emptyTree(cwd));
  const changes = new Map<string, ChangedPath>();
  const fields = splitZ(await git(cwd, ['-c', 'core.quotepath=off', 'diff', '--name-status', '-z', '-M', '--no-ext-diff', '--no-textconv', '--ignore-submodules=dirty', from, '--']));
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++]!;
    const code = status[0];
    if (code === 'R' || code === 'C') {
      const old = fields[i++]!;
      const now = fields[i++]!;
      changes.set(now, code === 'R' ? { path: now, change: 'renamed', from: old } : { path: now, change: 'added' });
    } else {
      const file = fields[i++]!;
      changes.set(file, { path: file, change: code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified' });
    }
  }
  // waves' own state (`.waves/`, `.dispatch-runs/`) is never an agent's work while it is untracked;
  // committed or staged there — a file added, or one moved in from elsewhere — it is a change like
  // any other (an agent's `git mv .github/workflows/ci.yml .waves/` deletes the workflow).
  for (const file of await untrackedFiles(cwd, base)) {
    if (!changes.has(file) && !OWN_STATE.test(file)) changes.set(file, { path: file, change: 'added' });
  }
  // git's diff trusts the index flags (assume-unchanged, skip-worktree): a flagged file is taken as
  // unchanged whatever it holds. Such a file is compared with the base by its content instead.
  for (const change of await flaggedChanges(cwd, from, changes)) changes.set(change.path, change);
  return [...changes.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * The untracked files of the work tree that the ignore rules of `base` do not ignore (with no
 * base, a repository without commits: its tree's own `.gitignore` files).
 */
async function untrackedFiles(cwd: string, base: string | null): Promise<string[]> {
  if (base === null) return splitZ(await git(cwd, ['ls-files', '--others', '--exclude-per-directory=.gitignore', '-z']));
  const text = baseExcludeText(await ignoreFilesOf(cwd, base));
  const dir = await mkdtemp(path.join(tmpdir(), 'waves-ignores-'));
  try {
    const file = path.join(dir, 'exclude');
    await writeFile(file, text, { mode: 0o600 });
    return splitZ(await git(cwd, ['ls-files', '--others', `--exclude-from=${file}`, '-z']));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}


/** The `.gitignore` files of a commit: path → content. */
async function ignoreFilesOf(cwd: string, commit: string): Promise<Map<string, string>> {
  const listed = splitZ(await git(cwd, ['-c', 'core.quotepath=off', 'ls-tree', '-r', '-z', '--full-tree', commit]));
  const blobs: { path: string; blob: string }[] = [];
  for (const record of listed) {
    const tab = record.indexOf('\t');
    const file = record.slice(tab + 1);
    const [, type, blob] = record.slice(0, tab).split(' ');
    if (type === 'blob' && blob && (file === '.gitignore' || file.endsWith('/.gitignore'))) blobs.push({ path: file, blob });
  }
  const out = new Map<string, string>();
  if (blobs.length === 0) return out;
  const result = await execaGit([...GIT_OPTIONS, 'cat-file', '--batch'], { cwd, reject: false, input: blobs.map((b) => `${b.blob}\n`).join(''), encoding: 'buffer', stripFinalNewline: false });
  if (result.exitCode !== 0) throw new GitError(`git cat-file in ${cwd} failed: ${Buffer.from(result.stderr).toString('utf8').split('\n')[0]}`);
  // `<id> blob <size>\n<content>\n` for each, in order.
  const bytes = Buffer.from(result.stdout);
  let at = 0;
  for (const { path: file } of blobs) {
    const header = bytes.indexOf(10, at);
    if (header < 0) break;
    const size = Number(bytes.toString('utf8', at, header).split(' ')[2]);
    if (!Number.isSafeInteger(size)) break;
    out.set(file, bytes.toString('utf8', header + 1, header + 1 + size));
    at = header + 1 + size + 1;
  }
  return out;
}

export interface IndexFlag {
  path: string;
  /** `assume-unchanged` (git ls-files -v: a lowercase tag), `skip-worktree` (`S`), or both (`s`). */
  flag: 'assume-unchanged' | 'skip-worktree' | 'assume-unchanged+skip-worktree';
}

/** The index entries of a work tree that carry a flag making git look away from the file. */
export async function indexFlags(cwd: string): Promise<IndexFlag[]> {
  const out: IndexFlag[] = [];
  for (const entry of splitZ(await git(cwd, ['-c', 'core.quotepath=off', 'ls-files', '-v', '-z']))) {
    const tag = entry[0]!;
    const file = entry.slice(2);
    if (tag === 's') out.push({ path: file, flag: 'assume-unchanged+skip-worktree' });
    else if (tag === 'S') out.push({ path: file, flag: 'skip-worktree' });
    else if (tag !== tag.toUpperCase()) out.push({ path: file, flag: 'assume-unchanged' });
  }
  return out;
}

/** The flags of `now` that `before` did not have (per path and flag). */
export function newIndexFlags(before: readonly IndexFlag[], now: readonly IndexFlag[]): IndexFlag[] {
  const had = new Set(before.map((f) => `${f.flag}\0${f.path}`));
  return now.filter((f) => !had.has(`${f.flag}\0${f.path}`));
}

/**
 * The flagged index entries whose file differs from `from` (compared by content, `--no-filters`),
 * not already among `known`. A skip-worktree file that is not there is what a sparse checkout
 * leaves out, not a deletion; an assume-unchanged one that is gone was deleted.
 */
async function flaggedChanges(cwd: string, from: string, known: ReadonlyMap<string, ChangedPath>): Promise<ChangedPath[]> {
  const flagged = (await indexFlags(cwd)).filter((f) => !known.has(f.path) && !/[\r\n]/.test(f.path));
  if (flagged.length === 0) return [];
  const stats = await Promise.all(flagged.map((f) => lstatInTree(cwd, f.path)));
  const present = flagged.filter((_, i) => stats[i] !== null);
  const gone = flagged.filter((f, i) => stats[i] === null && f.flag === 'assume-unchanged');
  const check = [...present, ...gone];
  if (check.length === 0) return [];
  const inBase = (await git(cwd, ['cat-file', '--batch-check=%(objectname)'], check.map((f) => `${from}:${f.path}\n`).join(''))).trim().split('\n');
  const baseOf = new Map(check.map((f, i) => [f.path, /^[0-9a-f]+$/.test(inBase[i] ?? '') ? inBase[i]! : null]));
  const now = new Map((await hashFiles(cwd, present.map((f) => f.path))).map((h) => [h.path, h.hash]));
  const out: ChangedPath[] = [];
  for (const f of present) {
    const base = baseOf.get(f.path) ?? null;
    if (base === null) out.push({ path: f.path, change: 'added' });
    else if (now.get(f.path) !== base) out.push({ path: f.path, change: 'modified' });
  }
  for (const f of gone) if (baseOf.get(f.path) !== null) out.push({ path: f.path, change: 'deleted' });
  return out;
}

/**
 * The biggest file harvest reads, hashes or commits: 50 MiB. A bigger changed file in a fence
 * needs a person (an agent's `truncate -s 100G` would cost minutes of hashing and a huge blob);
 * it is told apart by its size and times, never read.
 */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

export interface DirtyFile {
  path: string;
  /** The blob id of its content then; null when it was deleted. */
  hash: string | null;
}

/** The uncommitted files of a work tree and their content, before agents start in it. */
export async function dirtySnapshot(cwd: string): Promise<DirtyFile[]> {
  const changes = await changesSince(cwd, await headCommit(cwd));
  const paths = changes.flatMap((c) => (c.from ? [c.from, c.path] : [c.path]));
  return hashFiles(cwd, paths);
}

/**
 * The blob id of each file's current content (null for a file that is not there). A link is
 * identified by its target text, never read through; anything else that is not a regular file
 * (a FIFO would block the reader) counts as not there.
 */
export async function hashFiles(cwd: string, paths: readonly string[]): Promise<DirtyFile[]> {
  const kinds = await Promise.all(paths.map(async (p) => [p, await lstatInTree(cwd, p)] as const));
  const links = new Map<string, string>();
  for (const [p, stat] of kinds) if (stat?.isSymbolicLink()) links.set(p, `link:${await readlink(path.join(cwd, p))}`);
  // Too big to read: known by its size, times and inode (what changes when it is written).
  for (const [p, stat] of kinds) if (stat?.isFile() && stat.size > MAX_FILE_BYTES) links.set(p, `large:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`);
  const present = kinds.filter(([p, stat]) => stat?.isFile() && !links.has(p)).map(([p]) => p);
  // One call for the usual names; a name with a line break cannot go through --stdin-paths.
  const plain = present.filter((p) => !/[\r\n]/.test(p));
  const hashes = plain.length === 0 ? [] : (await git(cwd, ['hash-object', '--no-filters', '--stdin-paths'], `${plain.join('\n')}\n`)).trim().split('\n');
  const byPath = new Map<string, string | null>(plain.map((p, i) => [p, hashes[i] ?? null]));
  for (const odd of present.filter((p) => /[\r\n]/.test(p))) byPath.set(odd, (await git(cwd, ['hash-object', '--no-filters', '--', odd])).trim());
  return paths.map((p) => ({ path: p, hash: links.get(p) ?? byPath.get(p) ?? null }));
}

/** What `file` is in `commit`: a `blob` (a file or a link), a `tree`, a `commit` (a submodule), or null when it is not there. */
export async function objectAt(cwd: string, commit: string | null, file: string): Promise<string | null> {
  if (commit === null) return null;
  const result = await execaGit([...GIT_OPTIONS, 'cat-file', '-t', `${commit}:${file}`], { cwd, reject: false, stdin: 'ignore' });
  return result.exitCode === 0 ? result.stdout.trim() : null;
}
