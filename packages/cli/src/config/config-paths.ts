/**
 * Paths a config file names: `prompt.file`, `leases.journal`, `defaults.fromIssues`. A
 * repository's own waves.config.json is as untrusted as the rest of a clone, so its paths must
 * stay inside the root — lexically and after resolving symlinks (a dangling link counts as
 * leaving) — or a clone could put `~/.ssh/id_rsa` into every agent's prompt, read any file as its
 * backlog, or make waves append lease events to any file. A config named with --config is the
 * user's own choice, as is a path given on the command line: those are taken as given.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '@waves/planner';
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

/**
 * The absolute path of `value` (relative to the root), or a one-line `ConfigError` when the
 * repository's own config names a place outside it.
 */
export async function configPath(loaded: LoadedConfig, root: string, key: string, value: string): Promise<string> {
  const abs = path.resolve(root, value);
  if (loaded.explicit) return abs;
  const problem = await escapes(root, abs);
  if (problem && loaded.file === null) {
    // No config at all: the path is waves' own default, and the repository put a link there.
    throw new ConfigError(`${key} ${JSON.stringify(value)} (the default; there is no config) ${problem}; remove the link`);
  }
  if (problem) {
    throw new ConfigError(`config ${path.basename(loaded.file!)}: ${key} ${JSON.stringify(value)} ${problem}; a repository's config may only name paths inside it (or name your own config with --config)`);
  }
  return abs;
}
