/**
 * The agents' own hooks, installed per run in the run's work tree — never in the person's config:
 *
 * - Claude Code: a `PreToolUse` hook for `Edit|Write|MultiEdit|NotebookEdit` in the tree's
 *   `.claude/settings.local.json` (local project settings, https://code.claude.com/docs/en/settings),
 *   running `waves fence check --hook claude --run ID` (this waves, by absolute path).
 * - opencode: a plugin `.opencode/plugins/waves-fence.js` (project plugins are loaded from
 *   `.opencode/plugins/`, https://opencode.ai/docs/plugins), whose `tool.execute.before` asks the
 *   same checker before `write`, `edit`, `multiedit` and `apply_patch`, and throws the reason when
 *   refused. It uses the current plugin shape, a default export `{ id, server }`.
 *
 * A file already there is the person's (or the repository's): it is left alone and the hook not
 * installed (the watcher still guards). What waves wrote is removed when the run ends (its folders
 * too, when waves made them and they are empty), so harvest never sees it; while the run runs the
 * files are waves' own — an agent that changes or deletes them is refused by the watcher (`own`).
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { shellQuote } from '../shell-quote.js';
import { stateDir } from '../runs/state-dir.js';

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

/** The opencode plugin: asks the run's checker in opencode's own process, through waves' client module. */
export function opencodePlugin(runId: string, clientModule: string, env: Record<string, string>): string {
  return `// waves' live fence for run ${runId}: installed by waves for this run, removed when it ends.
// Before opencode's write, edit, multiedit and apply_patch tools run, it asks waves whether the
// files are inside the run's fence (or can be added to it), and throws the reason when refused.
import { opencodeCheck } from ${JSON.stringify(clientModule)};

const RUN = ${JSON.stringify(runId)};
const ENV = ${JSON.stringify(env)};

async function server() {
  return {
    'tool.execute.before': async (input, output) => {
      const answer = await opencodeCheck(RUN, { tool: input?.tool, args: output?.args }, { ...process.env, ...ENV });
      if (!answer.allowed) throw new Error(answer.message);
    },
  };
}

export default { id: 'waves-fence', server };
`;
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Writes a new file (never over one, never through a link), making its folder; returns the folders it made. */
async function writeNew(tree: string, relative: string, text: string): Promise<string[] | null> {
  const made: string[] = [];
  const parts = relative.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const info = await lstat(path.join(tree, dir)).catch(() => null);
    if (info === null) {
      await mkdir(path.join(tree, dir));
      made.push(dir);
    } else if (!info.isDirectory()) return null;
  }
  const handle = await open(path.join(tree, relative), CREATE, 0o644).catch(() => null);
  if (handle === null) return null;
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  return made;
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

/** Installs the integrations the agent's command gets; returns what was written (and the folders made, last). */
export async function installIntegrations(options: InstallOptions): Promise<Integrations & { madeDirs: string[] }> {
  const out: Integrations & { madeDirs: string[] } = { installed: [], notes: [], madeDirs: [] };
  // The state directory the client must ask in, whatever environment the agent gives its hooks.
  const env = { WAVES_STATE_DIR: stateDir(options.env ?? process.env) };
  for (const kind of integrationsFor(options.argv)) {
    const file = kind === 'claude' ? CLAUDE_SETTINGS : OPENCODE_PLUGIN;
    if ((await lstat(path.join(options.tree, file)).catch(() => null)) !== null) {
      out.notes.push(`the ${kind === 'claude' ? 'Claude Code hook' : 'opencode plugin'} of the live fence is not installed: ${file} exists (the person's or the repository's own); the watcher still checks every write`);
      continue;
    }
    const text =
      kind === 'claude'
        ? claudeSettings(shellQuote(['env', `WAVES_STATE_DIR=${env.WAVES_STATE_DIR}`, ...options.waves, 'fence', 'check', '--hook', 'claude', '--run', options.runId]))
        : opencodePlugin(options.runId, pathToFileURL(options.clientModule).href, env);
    const made = await writeNew(options.tree, file, text).catch(() => null);
    if (made === null) {
      out.notes.push(`the ${kind} integration of the live fence could not be written at ${file}; the watcher still checks every write`);
      continue;
    }
    out.installed.push(file);
    out.madeDirs.push(...made);
  }
  return out;
}

/** Removes what `installIntegrations` wrote: regular files only (never through a link), then the folders it made if empty. */
export async function removeIntegrations(tree: string, installed: readonly string[], madeDirs: readonly string[]): Promise<void> {
  for (const file of installed) {
    const info = await lstat(path.join(tree, file)).catch(() => null);
    if (info !== null && !info.isDirectory()) await rm(path.join(tree, file), { force: true }).catch(() => undefined);
  }
  for (const dir of [...madeDirs].sort((a, b) => b.length - a.length)) await rmdir(path.join(tree, dir)).catch(() => undefined);
}
