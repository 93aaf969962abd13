/**
 * A run's live fence, started by its supervisor before the agent and stopped after the agent's
 * processes are gone: the keeper (decisions, leases, the record), the socket the hooks and
 * `waves fence check` ask, the agent's hooks in its tree, and the watcher that checks every write.
 */
import { randomBytes } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { leaseStoreOf, openLeaseBackend } from '../leases/open-lease-backend.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FenceLog, FenceRefusal, RunRecord } from '../runs/run-record.js';
import { createFenceKeeper, type FenceKeeper } from './fence-keeper.js';
import { CLAUDE_SETTINGS, installIntegrations, integrationOfTemp, integrationText, OPENCODE_PLUGIN, removeIntegrations } from './fence-integrations.js';
import { startFenceServer, type FenceServer } from './fence-server.js';
import { watchTree, type TreeWatcher } from './fence-watch.js';

export interface LiveFenceOptions {
  recordFile: string;
  record: RunRecord;
  runId: string;
  now: () => Date;
  /** How to run this waves (node and its bin), for the hooks. */
  waves: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Writes the fence's log into the record (sealed). */
  save: (log: FenceLog) => Promise<void>;
  /** A line in the run's log. */
  note: (line: string) => void;
  /** A refusal with `fence.onRefusal: stop`: end the run as `fenced`. */
  stopRun: (reason: string) => void;
  /** An extension's lease was lost: end the run as `failed` with this reason, as for a planned lease. */
  leaseLost?: (reason: string) => void;
}

export interface LiveFence {
  keeper: FenceKeeper;
  /** The run's secret its agent asks its fence with (`WAVES_FENCE_TICKET` in the agent's environment alone). */
  key: string;
  /** The hook files it put in the run's tree (paths in the tree), for as long as the run runs. */
  installed: readonly string[];
  /** Checks every write seen so far (the agent's processes gone: all of them), its grants in the record. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export const CLIENT_MODULE = fileURLToPath(new URL('./fence-client.js', import.meta.url));
const INTEGRATION_FILES = new Set([CLAUDE_SETTINGS, OPENCODE_PLUGIN]);

export async function startLiveFence(options: LiveFenceOptions): Promise<LiveFence | null> {
  const { record } = options;
  const rules = record.fenceRules;
  if (!rules) return null;
  const root = path.dirname(path.dirname(options.recordFile));
  const tree = record.cwd;
  const key = randomBytes(24).toString('base64url');
  // The socket first: without one, no hook is installed (it would refuse every edit); the watcher guards.
  let keeperNow: FenceKeeper | null = null;
  let server: FenceServer | null = null;
  try {
    server = await startFenceServer(
      options.runId,
      {
        check: (paths, by) => (keeperNow === null ? Promise.reject(new Error('the fence is starting')) : keeperNow.check(paths, by)),
      },
      options.env,
      key,
    );
  } catch (error) {
    options.note(`fence: no checker socket (${(error as Error).message.split('\n')[0]}); no hook is installed, the watcher checks every write`);
  }
  const integrations =
    server === null
      ? { installed: [] as string[], notes: [] as string[], madeDirs: [] as string[] }
      : await installIntegrations({ tree, runId: options.runId, argv: record.argv, waves: options.waves, clientModule: CLIENT_MODULE, env: options.env });
  for (const line of integrations.notes) options.note(line);
  const log: FenceLog = { installed: integrations.installed, extensions: record.fence?.extensions ?? [], refusals: record.fence?.refusals ?? [] };
  await options.save(log);
  const shared = record.worktree === null;
  const onRefused = (refusal: FenceRefusal) => {
    const line = `fence: refused ${refusal.path} (${refusal.by}): ${refusal.message}`;
    options.note(line);
    if (rules.onRefusal === 'stop') options.stopRun(`fenced: ${refusal.path} was refused (${refusal.message})`);
  };
  const keeper = createFenceKeeper({
    root,
    tree,
    journal: record.journal,
    backend: openLeaseBackend(leaseStoreOf(record), options.now),
    rules,
    fence: record.scope?.fence ?? [],
    ttlMs: record.leaseTtlMs,
    now: options.now,
    ownFiles: integrations.installed,
    log,
    onChange: options.save,
    onGranted: (extension) => options.note(`fence: granted ${extension.path} (${extension.by}): ${extension.reason}`),
    onRefused,
    onLeaseLost: (lane, why) => options.leaseLost?.(`its lease on ${lane} was lost (${why})`),
    sharedTree: shared,
  });
  keeperNow = keeper;
  // waves' integration files as waves writes them, installed or removed by another run of a shared
  // tree, are no write of this run's agent (this run's own are judged: \`own\`).
  // So is the temporary file another run writes one through (linked into place, then removed).
  const wavesOwn = async (rel: string): Promise<boolean> => {
    const file = integrationOfTemp(rel) ?? rel;
    if (!INTEGRATION_FILES.has(file) || (file === rel && integrations.installed.includes(rel))) return false;
    const info = await lstat(path.join(tree, rel)).catch(() => null);
    if (info === null) return true;
    if (!info.isFile() || info.size > 64 * 1024) return false;
    const text = await readFile(path.join(tree, rel), 'utf8').catch(() => null);
    return text === integrationText(file === CLAUDE_SETTINGS ? 'claude' : 'opencode', { waves: options.waves, clientModule: CLIENT_MODULE, env: options.env });
  };
  const watcher: TreeWatcher = watchTree(
    tree,
    async (paths) => {
      const theirs = await Promise.all(paths.map(wavesOwn));
      const kept = paths.filter((_, i) => !theirs[i]);
      if (kept.length === 0) return;
      await keeper.check(kept, 'watcher').catch((error: unknown) => options.note(`fence: a check failed (${(error as Error).message.split('\n')[0]})`));
    },
    {
      onBlind: (rel, code) => {
        options.note(`fence: the watcher cannot watch ${rel || '.'}/ (${code}): writes there are not checked live; harvest will need a person`);
        void keeper.blind(rel, code);
      },
    },
  );
  await watcher.ready;
  return {
    keeper,
    key,
    installed: integrations.installed,
    settle: () => watcher.drain().catch(() => undefined),
    async close() {
      // Every write the agent made is checked before the run is settled: the record is complete.
      await watcher.drain().catch(() => undefined);
      watcher.close();
      await server?.close();
      await removeIntegrations(tree, integrations.installed, integrations.madeDirs, options.runId, options.env);
      await keeper.close().catch((error: unknown) => options.note(`fence: the extensions' leases were not released (${(error as Error).message.split('\n')[0]})`));
    },
  };
}
