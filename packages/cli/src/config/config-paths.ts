/**
 * Paths a config file names: `prompt.file`, `leases.journal`, `defaults.fromIssues`. A
 * repository's own waves.config.json is as untrusted as the rest of a clone, so its paths must
 * stay inside the root — lexically and after resolving symlinks (a dangling link counts as
 * leaving) — or a clone could put `~/.ssh/id_rsa` into every agent's prompt, read any file as its
 * backlog, or make waves append lease events to any file. A config named with --config is the
 * user's own choice, as is a path given on the command line: those are taken as given.
 *
 * Inside the root two places are still not a config's to name (red team 2, #8):
 * - `.git` (any path segment named so, and the repository's git dirs, also through links), for
 *   every config: waves appending lease events to `.git/config` or `.git/index` breaks the clone,
 *   and reading git's own files as a prompt or a backlog is never meant.
 * - for the repository's config, a journal anywhere but an untracked path under `.waves/`: lease
 *   events appended to a tracked source file would land in the next commit.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, execaGit, gitInputProblem, readRegularFile, SAFE_GIT_CONFIG } from '@waves/planner';
import type { LoadedConfig } from './load-config.js';

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Why `abs` is not inside `root` once symlinks are resolved, or null when it is. */
async function escapes(root: string, abs: string): Promise<string | null> {
  if (!inside(root, abs)) return 'leads outside the repository';
  const realRoot = await realpath(root).catch(() => root);
  // The deepest part of the path that exists decides where the rest will be created or read.
  for (let candidate = abs; ; candidate = path.dirname(candidate)) {
    try {
      return inside(realRoot, await realpath(candidate)) ? null : 'leads outside the repository through a symbolic link';
    } catch {
      const dangling = await lstat(candidate).then((info) => info.isSymbolicLink(), () => false);
      if (dangling) return 'is a symbolic link that leads nowhere (it could be created outside the repository)';
      if (candidate === path.dirname(candidate)) return null;
    }
  }
}

/** `abs` once the links of its deepest existing part are resolved (the rest appended as is). */
async function realish(abs: string): Promise<string> {
  const rest: string[] = [];
  for (let candidate = abs; ; candidate = path.dirname(candidate)) {
    try {
      return path.join(await realpath(candidate), ...rest.reverse());
    } catch {
      if (candidate === path.dirname(candidate)) return abs;
      rest.push(path.basename(candidate));
    }
  }
}

/** The repository's git dirs: `<root>/.git`, and where a `.git` file (a worktree's) points, with its common dir. */
async function gitDirs(root: string): Promise<string[]> {
  const dot = path.join(root, '.git');
  const dirs = [dot, await realish(dot)];
  // Read as any file of a clone is: a FIFO or a device there is no pointer, never a hang.
  const read = await readRegularFile(dot, { maxBytes: 64 * 1024, followLinks: true });
  const text = read.ok ? read.text : null;
  const pointer = text === null ? null : /^gitdir: *(.+?)\s*$/m.exec(text);
  if (pointer) {
    const gitdir = path.resolve(root, pointer[1]!);
    dirs.push(gitdir, await realish(gitdir));
    const commonRead = await readRegularFile(path.join(gitdir, 'commondir'), { maxBytes: 64 * 1024, followLinks: true });
    const common = commonRead.ok ? commonRead.text : null;
    if (common !== null && common.trim() !== '') dirs.push(await realish(path.resolve(gitdir, common.trim())));
  }
  return dirs;
}

const GIT_SEGMENT = /^\.git$/i;

/** Whether `abs` is git's: inside a git dir of the repository, or under a segment named `.git`. */
async function insideGit(root: string, abs: string): Promise<boolean> {
  const real = await realish(abs);
  const realRoot = await realish(root);
  for (const [base, target] of [[root, abs], [realRoot, real]] as const) {
    if (inside(base, target) && path.relative(base, target).split(path.sep).some((part) => GIT_SEGMENT.test(part))) return true;
  }
  const dirs = await gitDirs(root);
  return dirs.some((dir) => inside(dir, abs) || inside(dir, real));
}

/** Whether git tracks `rel` (a file, or files under it) in the repository at `root`. */
async function tracked(root: string, rel: string): Promise<boolean> {
  // A FIFO where git opens a file would block it: one line now, before any git runs.
  const blocked = await gitInputProblem(root);
  if (blocked !== null) throw new ConfigError(blocked);
  const result = await execaGit([...SAFE_GIT_CONFIG, '--literal-pathspecs', 'ls-files', '-z', '--', rel], {
    cwd: root,
    reject: false,
    stdin: 'ignore',
    maxBuffer: 1 << 20,
    env: { GIT_OPTIONAL_LOCKS: '0' },
  });
  return !result.failed && result.stdout.length > 0;
}

/** Why a repository's config may not name `abs` as its lease journal, or null. */
async function journalProblem(root: string, abs: string): Promise<string | null> {
  const waves = path.join(root, '.waves');
  const real = await realish(abs);
  if (!inside(waves, abs) || abs === waves || !inside(await realish(waves), real)) return 'is not under .waves/';
  if ((await tracked(root, path.relative(root, abs))) || (inside(await realish(root), real) && (await tracked(root, path.relative(await realish(root), real))))) {
    return 'is a file git tracks';
  }
  return null;
}

/**
 * The absolute path of `value` (relative to the root), or a one-line `ConfigError` when the
 * config names a place inside `.git`, or the repository's own config names a place outside the
 * root (or, for `leases.journal`, anything but an untracked path under `.waves/`).
 */
export async function configPath(loaded: LoadedConfig, root: string, key: string, value: string): Promise<string> {
  const abs = path.resolve(root, value);
  const where = loaded.file === null ? `${key} ${JSON.stringify(value)} (the default; there is no config)` : `config ${loaded.shown}: ${key} ${JSON.stringify(value)}`;
  if (await insideGit(root, abs)) {
    throw new ConfigError(`${where} is inside .git; waves never writes or reads git's own files there (name a path under .waves/)`);
  }
  if (loaded.explicit) return abs;
  const problem = (await escapes(root, abs)) ?? (key === 'leases.journal' ? await journalProblem(root, abs) : null);
  if (problem && loaded.file === null) {
    // No config at all: the path is waves' own default, and the repository put a link there.
    throw new ConfigError(`${key} ${JSON.stringify(value)} (the default; there is no config) ${problem}; remove the link`);
  }
  if (problem) {
    const only = key === 'leases.journal' ? 'an untracked path under .waves/ as its journal' : 'paths inside it';
    throw new ConfigError(`config ${path.basename(loaded.file!)}: ${key} ${JSON.stringify(value)} ${problem}; a repository's config may only name ${only} (or name your own config with --config)`);
  }
  return abs;
}
