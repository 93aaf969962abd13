/**
 * Whether a worktree of a run is still this repository's, before waves runs git in it: an agent
 * can rewrite its `.git` file (`gitdir: /elsewhere/.git`), and then every git command there —
 * the next run's snapshot, the harvest's diff, its commit — works on a foreign repository whose
 * config (filters, signing programs) runs as the person. Checked from files first, git last:
 *
 * - its `.git` is a regular file (not a link, not a folder) of the form `gitdir: <dir>`, and that
 *   dir is `<common>/worktrees/<name>` of this repository (its real path);
 * - that admin dir's `commondir` leads back to this repository's common dir and its `gitdir`
 *   back to the worktree's `.git`;
 * - only then: `git rev-parse --git-common-dir` there answers this repository's common dir, and
 *   `git worktree list --porcelain` (run in the root) lists the worktree on the expected branch.
 *
 * Also: the base of `--worktree` resolved to a commit before anything is dispatched.
 */
import { lstat, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { execaGit } from '@waves/planner';
import { GIT_OPTIONS } from '../harvest/git-changes.js';

const run = (cwd: string, args: readonly string[]) => execaGit([...GIT_OPTIONS, ...args], { cwd, reject: false, stdin: 'ignore' });

/** The real path of the repository's common git dir, asked in the root (null when git cannot say). */
export async function commonDirOf(root: string): Promise<string | null> {
  const result = await run(root, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (result.exitCode !== 0) return null;
  return realpath(result.stdout.trim()).catch(() => null);
}

/** A small pointer file (`gitdir: …`, `commondir`), read only when it is a regular file. */
async function pointer(file: string): Promise<string | null> {
  const stat = await lstat(file).catch(() => null);
  if (stat === null || !stat.isFile() || stat.size > 4096) return null;
  return (await readFile(file, 'utf8').catch(() => null))?.replace(/\r?\n$/, '') ?? null;
}

/**
 * Null when the worktree at `dir` is this repository's, on `branch`; else why not, in words that
 * name it (relative to the root). No git command runs in `dir` unless its files say it is ours.
 * With `branch` null, the branch it is on is not checked (the harvest reports a switch itself).
 */
export async function worktreeProblem(root: string, dir: string, branch: string | null): Promise<string | null> {
  const where = path.relative(root, dir) || '.';
  const common = await commonDirOf(root);
  if (common === null) return `the repository's git dir cannot be found from ${root}`;
  const files = await worktreeFilesProblem(root, dir, common);
  if (files !== null) return files;
  // Its files say it is ours: now git may be asked, there and in the root.
  const asked = await run(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  const there = asked.exitCode === 0 ? await realpath(asked.stdout.trim()).catch(() => null) : null;
  if (there !== common) return `git in ${where} answers for another repository (${asked.exitCode === 0 ? asked.stdout.trim() : 'none'}), not this one`;
  const listed = await run(root, ['worktree', 'list', '--porcelain', '-z']);
  if (listed.exitCode !== 0) return `git worktree list failed: ${gitFailure(listed.stderr)}`;
  const realDir = await realpath(dir).catch(() => dir);
  const entries = listed.stdout.split('\0\0').map((block) => block.split('\0'));
  const entry = entries.find((fields) => fields[0] === `worktree ${realDir}` || fields[0] === `worktree ${dir}`);
  if (!entry) return `git worktree list does not list ${where}: it is not a worktree of this repository`;
  const on = entry.find((f) => f.startsWith('branch '))?.slice('branch '.length) ?? null;
  if (branch !== null && on !== `refs/heads/${branch}`) return `${where} is on ${on?.replace(/^refs\/heads\//, '') ?? 'a detached HEAD'}, not ${branch}`;
  return null;
}

/**
 * The part of `worktreeProblem` that reads files only (no git runs): `dir/.git` is a regular file
 * pointing into `<common>/worktrees/`, whose `commondir` and `gitdir` lead back. `common` is the
 * real path of the repository's common git dir.
 */
export async function worktreeFilesProblem(root: string, dir: string, common: string): Promise<string | null> {
  const where = path.relative(root, dir) || '.';
  const dotGit = path.join(dir, '.git');
  const stat = await lstat(dotGit).catch(() => null);
  if (stat === null) return `${where}/.git is gone: it is no longer a worktree of this repository`;
  if (!stat.isFile()) return `${where}/.git is a ${stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'folder (a repository of its own)' : 'special file'}, not the file a worktree of this repository has`;
  const text = await pointer(dotGit);
  const match = text === null ? null : /^gitdir: (.+)$/.exec(text);
  if (!match) return `${where}/.git does not say "gitdir: …": it is no longer a worktree of this repository`;
  const admin = await realpath(path.resolve(dir, match[1]!)).catch(() => null);
  const worktrees = await realpath(path.join(common, 'worktrees')).catch(() => null);
  if (admin === null || worktrees === null || path.dirname(admin) !== worktrees) {
    return `${where}/.git points at ${match[1]}, not at a worktree of this repository (${path.join(common, 'worktrees')}/…): its git would be another repository's`;
  }
  const commonText = await pointer(path.join(admin, 'commondir'));
  const back = commonText === null ? null : await realpath(path.resolve(admin, commonText)).catch(() => null);
  if (back !== common) return `${path.relative(common, admin)}/commondir no longer leads to this repository's git dir: ${where} would be another repository's`;
  const gitdirText = await pointer(path.join(admin, 'gitdir'));
  const [own, realDotGit] = await Promise.all([
    gitdirText === null ? null : realpath(path.resolve(admin, gitdirText)).catch(() => null),
    realpath(dotGit).catch(() => null),
  ]);
  if (own === null || own !== realDotGit) return `${path.relative(common, admin)}/gitdir does not lead back to ${where}/.git: the worktree's registration was changed`;
  return null;
}

/** The line of git's error output that says what went wrong (`fatal:`, `error:`), else its first line. */
export function gitFailure(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^(?:fatal|error):/.test(l)) ?? lines[0] ?? 'no message';
}

/**
 * The commit `base` names in the repository at `root`, or why it names none (a leading `-`
 * would reach git as an option: refused as such).
 */
export async function resolveBase(root: string, base: string): Promise<{ ok: true; commit: string } | { ok: false; why: string }> {
  if (base === '' || base.startsWith('-')) return { ok: false, why: `${JSON.stringify(base)} is not a ref (it would reach git as an option)` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(base)) return { ok: false, why: `${JSON.stringify(base)} holds a control character` };
  const result = await run(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`]);
  if (result.exitCode !== 0) return { ok: false, why: `${base} names no commit in ${root}` };
  return { ok: true, commit: result.stdout.trim() };
}
