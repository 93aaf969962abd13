/**
 * The agents' own project config in a run's tree, which the tools load after (or instead of) what
 * waves passes them, and which would widen what a preset may do — a repository's (or an earlier
 * agent's) word, like a `permissions` setting of the repository's waves.config.json, which is
 * refused:
 *
 * - Claude Code loads `.claude/settings.json` (project) and `.claude/settings.local.json` (local)
 *   of the tree, and in print mode no trust dialog is shown: their `permissions.allow` adds to the
 *   `--allowedTools` waves passes, `defaultMode` changes the mode, and a `PreToolUse` hook may
 *   answer "allow" for any tool. (`--setting-sources user` would skip them, but the live fence's
 *   hook is installed in the tree's local settings; see README, Presets.)
 * - opencode merges the project's `opencode.json(c)` and `.opencode/opencode.json(c)` of the
 *   directory and every parent, and its agents (`.opencode/agent(s)/*.md`) and plugins
 *   (`.opencode/plugin(s)/*`): an agent-level `permission` wins over the top-level one of
 *   `OPENCODE_CONFIG_CONTENT`, and a plugin runs code in opencode's own process.
 *
 * A run of claude or opencode whose tree holds such a file does not start (one line saying which
 * file), unless the person's own config allows it (`agents.<name>.permissions.projectConfig`).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { readRegularFile } from '@waves/planner';
import { CLAUDE_SETTINGS, OPENCODE_PLUGIN } from '../fence/fence-integrations.js';

const MAX_BYTES = 1024 * 1024;
const CLAUDE_FILES = ['.claude/settings.json', '.claude/settings.local.json'];
const OPENCODE_FILES = ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'];
const OPENCODE_DIRS = ['.opencode/agent', '.opencode/agents', '.opencode/plugin', '.opencode/plugins'];
/** Keys of an opencode config that change what an agent may do. */
const OPENCODE_KEYS = /"(permission|agent|default_agent|mode|plugin|tools)"\s*:/;

/**
 * The texts of waves' own integration files (the live fence's, fence-integrations.ts), exactly as
 * this waves writes them: such a file is exempt, any other text at their paths is the tree's own.
 */
export type OwnIntegrationTexts = ReadonlySet<string>;

async function claudeProblem(tree: string, shown: string, own: OwnIntegrationTexts): Promise<string | null> {
  for (const file of CLAUDE_FILES) {
    const read = await readRegularFile(path.join(tree, file), { maxBytes: MAX_BYTES });
    if (!read.ok) {
      if (read.kind === 'missing') continue;
      return `${shown}${file} ${read.reason}`;
    }
    if (file === CLAUDE_SETTINGS && own.has(read.text)) continue;
    let settings: unknown;
    try {
      settings = JSON.parse(read.text);
    } catch {
      return `${shown}${file} is not JSON`;
    }
    if (typeof settings !== 'object' || settings === null) continue;
    const { permissions, hooks } = settings as { permissions?: Record<string, unknown>; hooks?: unknown };
    const grants = permissions && typeof permissions === 'object' ? ['allow', 'defaultMode', 'additionalDirectories'].filter((key) => permissions[key] !== undefined) : [];
    if (grants.length > 0) return `${shown}${file} sets permissions.${grants.join(', permissions.')}`;
    if (hooks !== undefined) return `${shown}${file} sets hooks (a PreToolUse hook may allow any tool)`;
  }
  return null;
}

async function opencodeProblem(tree: string, shown: string, own: OwnIntegrationTexts): Promise<string | null> {
  for (const file of OPENCODE_FILES) {
    const read = await readRegularFile(path.join(tree, file), { maxBytes: MAX_BYTES });
    if (!read.ok) {
      if (read.kind === 'missing') continue;
      return `${shown}${file} ${read.reason}`;
    }
    const key = OPENCODE_KEYS.exec(read.text);
    if (key) return `${shown}${file} sets "${key[1]}"`;
  }
  for (const dir of OPENCODE_DIRS) {
    const names = await readdir(path.join(tree, dir)).catch(() => [] as string[]);
    const foreign: string[] = [];
    for (const name of names) {
      if (`${dir}/${name}` === OPENCODE_PLUGIN) {
        // waves' own plugin, exactly as this waves writes it; other text at its path is the tree's own code.
        const read = await readRegularFile(path.join(tree, OPENCODE_PLUGIN), { maxBytes: MAX_BYTES });
        if (read.ok && own.has(read.text)) continue;
      }
      foreign.push(name);
    }
    if (foreign.length > 0) return `${shown}${dir}/${foreign.sort()[0]} is an opencode ${dir.includes('plugin') ? 'plugin (code run in opencode itself)' : 'agent (its permissions win over waves\')'}`;
  }
  return null;
}

/**
 * Why the agent of `argv` (claude or opencode, by its executable's name) must not start in `tree`,
 * or null. `alsoAt`: folders the tool reads too (the main checkout of a worktree inside it).
 */
export async function projectAgentConfigProblem(
  tree: string,
  argv: readonly string[],
  alsoAt: readonly string[] = [],
  agent?: string,
  own: OwnIntegrationTexts = new Set(),
): Promise<string | null> {
  const name = path.basename(argv[0] ?? '');
  const check = name === 'claude' ? claudeProblem : name === 'opencode' ? opencodeProblem : null;
  if (check === null) return null;
  for (const dir of [tree, ...alsoAt]) {
    const shown = dir === tree ? '' : `${dir}/`;
    const problem = await check(dir, shown, own);
    if (problem !== null) {
      return `${problem}, which would widen what ${name} may do beyond waves' rules; remove it, or allow it with agents.${agent ?? name}.permissions.projectConfig in a config of your own (--config FILE)`;
    }
  }
  return null;
}
