/**
 * Adapter: the recent history of a commit, for scope inference's history prior — what a
 * maintainer knows without reading the code: which files changed lately, and what the commits
 * that changed them said. Only ancestors of the commit are read (`git log <commit>`), never
 * anything after it, so a backtest planning a past commit sees only the past.
 *
 * Bounded: the last `MAX_PRIOR_COMMITS` first-parent commits, commits of more than
 * `MAX_PRIOR_FILES` files left out (sweeps say nothing about where one change goes), subjects cut
 * to 200 characters. Cached under `.waves/cache/` by commit id: a commit's history never changes.
 */
import path from 'node:path';
import { lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { PastCommit } from '../types.js';
import { execaGit } from './git-run.js';
import { SAFE_GIT_CONFIG } from './git-options.js';
import { readRegularFile } from './read-regular-file.js';

export const MAX_PRIOR_COMMITS = 2000;
export const MAX_PRIOR_FILES = 30;
const MAX_SUBJECT = 200;
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const HISTORY_CACHE_VERSION = 1;

function historyCacheFile(cacheRoot: string, sha: string): string {
  return path.join(cacheRoot, '.waves', 'cache', `history-v${HISTORY_CACHE_VERSION}-${sha}.json`);
}

function isPastCommits(value: unknown): value is PastCommit[] {
  return (
    Array.isArray(value) &&
    value.length <= MAX_PRIOR_COMMITS &&
    value.every(
      (c) => c && typeof c === 'object' && typeof (c as PastCommit).subject === 'string' && Array.isArray((c as PastCommit).files) && (c as PastCommit).files.every((f) => typeof f === 'string'),
    )
  );
}

/** How many histories (of different commits) the cache keeps: a plan at HEAD, and a few backtest bases. */
const KEPT_HISTORIES = 4;

/** Removes all but the newest `KEPT_HISTORIES` history files: each new HEAD writes one. */
async function pruneHistoryCaches(dir: string): Promise<void> {
  const names = (await readdir(dir)).filter((name) => /^history-v\d+-[0-9a-f]+\.json$/.test(name));
  if (names.length <= KEPT_HISTORIES) return;
  const dated = await Promise.all(names.map(async (name) => ({ name, at: (await stat(path.join(dir, name)).catch(() => null))?.mtimeMs ?? 0 })));
  dated.sort((a, b) => b.at - a.at || (a.name < b.name ? -1 : 1));
  for (const { name } of dated.slice(KEPT_HISTORIES)) await rm(path.join(dir, name), { force: true });
}

/** Parses `git log -z --name-only --format=%x1e%s`. */
export function parsePriorLog(stdout: string): PastCommit[] {
  const out: PastCommit[] = [];
  let current: { subject: string; files: string[] } | null = null;
  const flush = () => {
    if (current && current.files.length > 0 && current.files.length <= MAX_PRIOR_FILES) out.push(current);
  };
  for (const raw of stdout.split('\0')) {
    const token = raw.replace(/^\n+/, '');
    if (token === '') continue;
    if (token.startsWith('\x1e')) {
      flush();
      // `%s` then a newline, then the first file name in the same token.
      const nl = token.indexOf('\n');
      const subject = (nl < 0 ? token.slice(1) : token.slice(1, nl)).slice(0, MAX_SUBJECT);
      current = { subject, files: [] };
      const first = nl < 0 ? '' : token.slice(nl + 1).replace(/^\n+/, '');
      if (first !== '') current.files.push(first);
      continue;
    }
    current?.files.push(token);
  }
  flush();
  return out;
}

/**
 * The recent first-parent history of `commit` (HEAD when omitted), newest first; null when the
 * directory is no git checkout or git fails (inference then goes without a history prior).
 */
export async function readHistoryPrior(root: string, options: { commit?: string; cacheRoot?: string; cache?: boolean } = {}): Promise<PastCommit[] | null> {
  const git = (args: readonly string[]) =>
    execaGit([...SAFE_GIT_CONFIG, '-c', 'log.showSignature=false', '-c', 'core.quotepath=off', ...args], { cwd: root, stdin: 'ignore', reject: false, maxBuffer: 256 * 1024 * 1024 });
  // Only at the top of a repository: below it, the history's paths are not the listing's.
  const prefix = await git(['rev-parse', '--show-prefix']).catch(() => null);
  if (!prefix || prefix.exitCode !== 0 || prefix.stdout.trim() !== '') return null;
  let sha = options.commit;
  if (sha === undefined) {
    const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => null);
    sha = head && head.exitCode === 0 ? head.stdout.trim() : undefined;
  }
  if (sha === undefined || !SHA.test(sha)) return null;
  const useCache = options.cache !== false;
  const file = historyCacheFile(options.cacheRoot ?? root, sha);
  if (useCache) {
    const read = await readRegularFile(file, { maxBytes: 64 * 1024 * 1024 });
    if (read.ok) {
      try {
        const data: unknown = JSON.parse(read.text);
        if (isPastCommits(data)) return data;
      } catch {
        // rebuilt below
      }
    }
  }
  const log = await git(['log', '--first-parent', '--diff-merges=off', '--no-renames', '--no-relative', '--name-only', '-z', '--no-color', '--format=%x1e%s', '-n', String(MAX_PRIOR_COMMITS), sha, '--']).catch(() => null);
  if (!log || log.exitCode !== 0) return null;
  const commits = parsePriorLog(log.stdout);
  if (useCache) {
    try {
      // Never through a link a clone or an agent put in place of waves' own folders.
      for (const dir of [path.dirname(path.dirname(file)), path.dirname(file)]) {
        const info = await lstat(dir).catch(() => null);
        if (info !== null && !info.isDirectory()) return commits;
      }
      await mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      await rm(temp, { force: true });
      await writeFile(temp, JSON.stringify(commits), { flag: 'wx' });
      await rename(temp, file);
      await pruneHistoryCaches(path.dirname(file));
    } catch {
      // not fatal: read again next time
    }
  }
  return commits;
}
