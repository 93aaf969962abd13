/**
 * Worktree setup: the commands (`worktree.setup`) run in a run's worktree before its agent starts,
 * so that the agent — and the harvest's verification after it — finds a tree that builds: a fresh
 * worktree has no `node_modules`. When the config says nothing, the lockfile at the root chooses
 * the install; `[]` turns setup off. The supervisor runs them (supervise.ts) with the verification
 * machinery (run-verify.ts): argv with no shell, stdin closed, the agent's scrubbed environment and
 * marker, a log of their own, a deadline each, the whole process tree stopped after each.
 *
 * NOTE: a repository's own config chooses these commands, and an install runs the lifecycle
 * scripts of the repository and its dependencies: programs of the repository's choosing, as its
 * `verify` commands already are (the harvest runs them), and as the agent itself is free to run.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';

/** How long each setup command may run when the config does not say (`worktree.setupTimeout`). */
export const DEFAULT_SETUP_TIMEOUT = '10m';

const isFile = async (file: string) => (await lstat(file).catch(() => null))?.isFile() ?? false;

/**
 * The install the lockfile at the root asks for — the first of pnpm-lock.yaml, package-lock.json,
 * yarn.lock (yarn berry, with a .yarnrc.yml, has `--immutable` for `--frozen-lockfile`) — each from
 * the lockfile as it is, preferring what is already on the machine; none without a lockfile.
 */
export async function lockfileSetup(root: string): Promise<string[][]> {
  if (await isFile(path.join(root, 'pnpm-lock.yaml'))) return [['pnpm', 'install', '--frozen-lockfile', '--prefer-offline']];
  if (await isFile(path.join(root, 'package-lock.json'))) return [['npm', 'ci', '--prefer-offline', '--no-audit', '--no-fund']];
  if (await isFile(path.join(root, 'yarn.lock'))) {
    return (await isFile(path.join(root, '.yarnrc.yml'))) ? [['yarn', 'install', '--immutable']] : [['yarn', 'install', '--frozen-lockfile']];
  }
  return [];
}

/** The setup log of a run, beside its agent log: `resolve-N-<stamp>.setup.log`. */
export function setupLogOf(agentLog: string): string {
  return agentLog.replace(/\.log$/, '.setup.log');
}
