/**
 * A run's live fence, started by its supervisor before the agent and stopped after the agent's
 * processes are gone: the keeper (decisions, leases, the record), the socket the hooks and
 * `waves fence check` ask, the agent's hooks in its tree, and the watcher that checks every write.
 */
import { leaseStoreOf, openLeaseBackend } from '../leases/open-lease-backend.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FenceLog, FenceRefusal, RunRecord } from '../runs/run-record.js';
import { createFenceKeeper, type FenceKeeper } from './fence-keeper.js';
import { installIntegrations, removeIntegrations } from './fence-integrations.js';
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
  close(): Promise<void>;
}

const CLIENT_MODULE = fileURLToPath(new URL('./fence-client.js', import.meta.url));

export async function startLiveFence(options: LiveFenceOptions): Promise<LiveFence | null> {
  const { record } = options;
  const rules = record.fenceRules;
  if (!rules) return null;
  const root = path.dirname(path.dirname(options.recordFile));
  const tree = record.cwd;
  const integrations = await installIntegrations({ tree, runId: options.runId, argv: record.argv, waves: options.waves, clientModule: CLIENT_MODULE, env: options.env });
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
  let server: FenceServer | null = null;
  try {
    server = await startFenceServer(options.runId, keeper, options.env);
  } catch (error) {
    options.note(`fence: no checker socket (${(error as Error).message.split('\n')[0]}); the hooks refuse every edit outside the fence, the watcher still checks every write`);
  }
  const watcher: TreeWatcher = watchTree(tree, async (paths) => {
    await keeper.check(paths, 'watcher').catch((error: unknown) => options.note(`fence: a check failed (${(error as Error).message.split('\n')[0]})`));
  });
  await watcher.ready;
  return {
    keeper,
    async close() {
      // Every write the agent made is checked before the run is settled: the record is complete.
      await watcher.drain().catch(() => undefined);
      watcher.close();
      await server?.close();
      await removeIntegrations(tree, integrations.installed, integrations.madeDirs);
      await keeper.close().catch((error: unknown) => options.note(`fence: the extensions' leases were not released (${(error as Error).message.split('\n')[0]})`));
    },
  };
}
