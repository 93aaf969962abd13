/**
 * The agents' own hooks, installed per run in the run's work tree — never in the person's config:
 *
 * - Claude Code: a `PreToolUse` hook for `Edit|Write|MultiEdit|NotebookEdit` in the tree's
 *   `.claude/settings.local.json` (local project settings, https://code.claude.com/docs/en/settings),
 *   running `waves fence check --hook claude` (this waves, by absolute path), which asks the fence
 *   of the run the agent works for (its `WAVES_RUN`): one file serves every run of a shared tree.
 * - opencode: a plugin `.opencode/plugins/waves-fence.js` (project plugins are loaded from
 *   `.opencode/plugins/`, https://opencode.ai/docs/plugins), whose `tool.execute.before` asks the
 *   same checker before `write`, `edit`, `multiedit` and `apply_patch`, and throws the reason when
 *   refused. It uses the current plugin shape, a default export `{ id, server }`.
 *
 * A file already there exactly as waves writes it is shared (another run of the tree installed it);
 * one an older waves wrote for a run that has ended (a supervisor killed) is replaced; any other is
 * the person's (or the repository's): left alone, the hook not installed (the watcher still
 * guards). The runs using a tree's files are counted in the state directory; the last to end
 * removes them (and the folders made for them, when empty), so harvest never sees them; while a
 * run runs the files are waves' own — an agent that changes or deletes them is refused (`own`).
 */
import { constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { link, lstat, mkdir, open, readdir, readFile, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeTreeDirs, removeTreeFiles } from '../harvest/held-dir.js';
import { pathToFileURL } from 'node:url';
import { shellQuote } from '../shell-quote.js';
import { stateDir } from '../runs/state-dir.js';
import { fenceSocketPath } from './fence-client.js';
import { answers } from './fence-server.js';

export const CLAUDE_SETTINGS = '.claude/settings.local.json';
export const OPENCODE_PLUGIN = '.opencode/plugins/waves-fence.js';

export interface Integrations {
  /** Tree-relative paths of the files waves wrote. */
  installed: string[];
  /** Why an integration was not installed (for the run's log). */
  notes: string[];
}

/** Which integrations an agent's command gets: by the name of its executable. */
export function integrationsFor(argv: readonly string[]): ('claude' | 'opencode')[] {
  const name = path.basename(argv[0] ?? '');
  if (name === 'claude') return ['claude'];
  if (name === 'opencode') return ['opencode'];
  return [];
}

/** The Claude Code settings that hook the fence check in. */
export function claudeSettings(command: string): string {
  return `${JSON.stringify(
    {
      hooks: {
        PreToolUse: [{ matcher: 'Edit|Write|MultiEdit|NotebookEdit', hooks: [{ type: 'command', command, timeout: 60 }] }],
      },
    },
    null,
    2,
  )}\n`;
}

/** The opencode plugin: asks the checker of the run opencode runs in (its WAVES_RUN), in opencode's own process, through waves' client module. */
export function opencodePlugin(clientModule: string, env: Record<string, string>): string {
  return `// waves' live fence: installed by waves while its runs work in this tree, removed when the last ends.
// Before opencode's write, edit, multiedit and apply_patch tools run, it asks waves whether the
// files are inside the fence of the run opencode works for (WAVES_RUN), or can be added to it,
// and throws the reason when refused.
import { opencodeCheck } from ${JSON.stringify(clientModule)};

const ENV = ${JSON.stringify(env)};

async function server() {
  return {
    'tool.execute.before': async (input, output) => {
      const answer = await opencodeCheck(process.env.WAVES_RUN ?? '', { tool: input?.tool, args: output?.args }, { ...process.env, ...ENV });
      if (!answer.allowed) throw new Error(answer.message);
    },
  };
}

export default { id: 'waves-fence', server };
`;
}

/** The text of an integration file, as this waves writes it (the same for every run of a tree: the hook reads the run from WAVES_RUN). */
export function integrationText(kind: 'claude' | 'opencode', options: Pick<InstallOptions, 'waves' | 'clientModule' | 'env'>): string {
  const state = stateDir(options.env ?? process.env);
  return kind === 'claude'
    ? claudeSettings(shellQuote(['env', `WAVES_STATE_DIR=${state}`, ...options.waves, 'fence', 'check', '--hook', 'claude']))
    : opencodePlugin(pathToFileURL(options.clientModule).href, { WAVES_STATE_DIR: state });
}

/**
 * The run an integration file of an older waves was written for (its text exactly as that waves
 * wrote it, with `--run ID` or `const RUN`): such a file of a run that has ended is waves' own, left
 * by a supervisor that was killed, and is replaced. null: not such a file.
 */
function oldRunOf(kind: 'claude' | 'opencode', text: string, options: Pick<InstallOptions, 'waves' | 'clientModule' | 'env'>): string | null {
  const state = stateDir(options.env ?? process.env);
  if (kind === 'claude') {
    const match = /--run (resolve-\d{1,16}-\d{8}T\d{9}Z)"/.exec(text);
    if (!match) return null;
    return text === claudeSettings(shellQuote(['env', `WAVES_STATE_DIR=${state}`, ...options.waves, 'fence', 'check', '--hook', 'claude', '--run', match[1]!])) ? match[1]! : null;
  }
  const match = /^\/\/ waves' live fence for run (resolve-\d{1,16}-\d{8}T\d{9}Z):/.exec(text);
  return match && text.includes(`const RUN = ${JSON.stringify(match[1])};`) && text.includes(JSON.stringify(pathToFileURL(options.clientModule).href)) ? match[1]! : null;
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Writes a new file (never over one, never through a link), making its folder; returns the folders it made. */
async function writeNew(tree: string, relative: string, text: string): Promise<{ made: string[]; written: boolean } | null> {
  const made: string[] = [];
  const parts = relative.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const info = await lstat(path.join(tree, dir)).catch(() => null);
    if (info === null) {
      // Another run of the tree may make it at the same instant: then it is not this run's.
      const created = await mkdir(path.join(tree, dir)).then(
        () => true,
        () => false,
      );
      if (created) made.push(dir);
      else if (!(await lstat(path.join(tree, dir)).catch(() => null))?.isDirectory()) return null;
    } else if (!info.isDirectory()) return null;
  }
  // Whole or not at all: written beside, then linked into place (which fails when the file is
  // there already), so that another run of the tree never reads it half written and takes it for
  // someone else's. Where hard links are not supported, created in place.
  const target = path.join(tree, relative);
  const temp = path.join(path.dirname(target), integrationTemp(path.basename(target)));
  const written = await writeExclusive(temp, text);
  if (written) {
    try {
      await link(temp, target);
      return { made, written: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { made, written: false };
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }
  return { made, written: await writeExclusive(target, text) };
}

/** The name an integration file is written under before it is linked into place. */
function integrationTemp(base: string): string {
  return `.${base}.${process.pid}.${Date.now()}.tmp`;
}

/** The integration file a path is the temporary of (`.claude/.settings.local.json.<pid>.<ms>.tmp`), or null. */
export function integrationOfTemp(relative: string): string | null {
  const match = /^(.*\/)?\.([^/]+)\.\d+\.\d+\.tmp$/.exec(relative);
  if (!match) return null;
  const file = `${match[1] ?? ''}${match[2]}`;
  return file === CLAUDE_SETTINGS || file === OPENCODE_PLUGIN ? file : null;
}

/** Creates a file that is not there yet (never through a link) with this text; false when it cannot. */
async function writeExclusive(file: string, text: string): Promise<boolean> {
  const handle = await open(file, CREATE, 0o644).catch(() => null);
  if (handle === null) return false;
  try {
    await handle.writeFile(text);
    return true;
  } finally {
    await handle.close();
  }
}

export interface InstallOptions {
  tree: string;
  runId: string;
  argv: readonly string[];
  /** How to run this waves: node and its bin, absolute. */
  waves: readonly string[];
  /** The client module for the opencode plugin (absolute path of fence-client.js). */
  clientModule: string;
  env?: NodeJS.ProcessEnv;
}

/** Where the runs sharing a tree's integration files say so: one file per run (its supervisor's pid, the folders made). */
function usersDir(tree: string, env: NodeJS.ProcessEnv): string {
  return path.join(stateDir(env), 'fence', 'users', createHash('sha256').update(path.resolve(tree)).digest('hex').slice(0, 16));
}

const alive = (pid: unknown) => {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Reads a small regular file (never through a link); null otherwise. */
async function readSmall(file: string): Promise<string | null> {
  const info = await lstat(file).catch(() => null);
  if (info === null || !info.isFile() || info.size > 64 * 1024) return null;
  return readFile(file, 'utf8').catch(() => null);
}

/**
 * Installs the integrations the agent's command gets; returns what this run uses (written, or
 * found as waves wrote it for another run of the tree: shared) and the folders it made. A file of
 * the person or the repository is left alone; one an older waves wrote for a run that has ended is replaced.
 */
export async function installIntegrations(options: InstallOptions): Promise<Integrations & { madeDirs: string[] }> {
  const out: Integrations & { madeDirs: string[] } = { installed: [], notes: [], madeDirs: [] };
  const env = options.env ?? process.env;
  for (const kind of integrationsFor(options.argv)) {
    const file = kind === 'claude' ? CLAUDE_SETTINGS : OPENCODE_PLUGIN;
    const what = kind === 'claude' ? 'Claude Code hook' : 'opencode plugin';
    const text = integrationText(kind, options);
    const where = path.join(options.tree, file);
    if ((await lstat(where).catch(() => null)) !== null) {
      const there = await readSmall(where);
      if (there === text) {
        // Another run of this tree installed it: the same file serves this run (the hook reads WAVES_RUN).
        out.installed.push(file);
        continue;
      }
      const oldRun = there === null ? null : oldRunOf(kind, there, options);
      if (oldRun === null || (await answers(fenceSocketPath(oldRun, env)))) {
        out.notes.push(`the ${what} of the live fence is not installed: ${file} exists (the person's or the repository's own); the watcher still checks every write`);
        continue;
      }
      out.notes.push(`the ${what} of the live fence left by run ${oldRun}, which has ended, is replaced`);
      await rm(where, { force: true }).catch(() => undefined);
    }
    const wrote = await writeNew(options.tree, file, text).catch(() => null);
    // The folders it made are this run's to remove, whoever wrote the file.
    if (wrote !== null) out.madeDirs.push(...wrote.made);
    // Written by another run of the tree at the same instant: shared.
    if (wrote?.written || (await readSmall(where)) === text) {
      out.installed.push(file);
      continue;
    }
    out.notes.push(`the ${kind} integration of the live fence could not be written at ${file}; the watcher still checks every write`);
  }
  if (out.installed.length > 0) {
    const users = usersDir(options.tree, env);
    await mkdir(users, { recursive: true, mode: 0o700 }).catch(() => undefined);
    await writeFile(path.join(users, options.runId), JSON.stringify({ pid: process.pid, madeDirs: out.madeDirs }), { mode: 0o600 }).catch(() => undefined);
  }
  return out;
}

/**
 * Removes what `installIntegrations` set up for a run: when no other live run of the tree uses
 * them, the files (regular files only, never through a link), then
 * the folders any run made for them, if empty.
 */
export async function removeIntegrations(tree: string, installed: readonly string[], madeDirs: readonly string[], runId?: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dirs = new Set(madeDirs);
  if (runId !== undefined) {
    const users = usersDir(tree, env);
    const others = (await readdir(users).catch(() => [] as string[])).filter((name) => name !== runId);
    let inUse = false;
    for (const other of others) {
      let entry: { pid?: unknown; madeDirs?: unknown } = {};
      try {
        entry = JSON.parse((await readSmall(path.join(users, other))) ?? '{}');
      } catch {
        entry = {};
      }
      if (alive(entry.pid)) inUse = true;
      else if (Array.isArray(entry.madeDirs)) for (const d of entry.madeDirs) if (d === '.claude' || d === '.opencode' || d === '.opencode/plugins') dirs.add(d);
    }
    if (inUse) {
      // Another run still uses the files: they stay, and the folders this run made are left for the last to remove.
      await writeFile(path.join(users, runId), JSON.stringify({ pid: null, madeDirs }), { mode: 0o600 }).catch(() => undefined);
      return;
    }
    for (const name of [runId, ...others]) await rm(path.join(users, name), { force: true }).catch(() => undefined);
    await rmdir(users).catch(() => undefined);
  }
  // Regular files only, and never through a link: an agent can put a link to another project's
  // folder where `.claude` was, and a remove from the top would delete that project's settings.
  await removeTreeFiles(tree, installed).catch(() => undefined);
  await removeTreeDirs(tree, [...dirs]).catch(() => undefined);
}
