import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { exampleRepo } from './example-repo.js';
import { killAll, pidsOfRuns } from './processes.js';
import type { TempRepo } from './temp-repo.js';

/** The example repository shared by the tests of one file that run agents, and what they started. */
export interface RunRepo {
  /** The repository (set once the file's `beforeAll` has run). */
  readonly repo: TempRepo;
  readonly root: string;
  /** A folder beside the repository, outside it, for the tests' scripts and traces. */
  readonly side: string;
  /** Pids a test saw (agents, supervisors, grandchildren): killed after each test, group and process. */
  readonly started: Set<number>;
  /** Dispatches a test started: killed after each test, whatever state it left them in. */
  readonly dispatches: { kill(signal?: NodeJS.Signals | number): unknown }[];
}

/**
 * Registers the hooks of a test file whose tests run agents on one example repository: made before
 * them (with this config), and after each test whatever it left running — a dispatch that outlived
 * a failed assertion, its supervisors, agents and grandchildren — is killed, and its runs, leases
 * and the `clean` paths (relative to the root) are removed, so that the next test starts from no
 * runs and no leases; at the end `dispose`, then the side folder and the repository go.
 */
export function useRunRepo(options: { config?: object; clean?: readonly string[]; dispose?: () => void } = {}): RunRepo {
  let repo: TempRepo | null = null;
  const started = new Set<number>();
  const dispatches: RunRepo['dispatches'] = [];
  const handle: RunRepo = {
    get repo() {
      if (repo === null) throw new Error('useRunRepo: the repository is made in beforeAll');
      return repo;
    },
    get root() {
      return handle.repo.root;
    },
    get side() {
      return `${handle.repo.root}-side`;
    },
    started,
    dispatches,
  };
  beforeAll(async () => {
    repo = await exampleRepo(options.config ?? {});
    rmSync(handle.side, { recursive: true, force: true });
    mkdirSync(handle.side, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    options.dispose?.();
    rmSync(handle.side, { recursive: true, force: true });
    await repo?.dispose();
  });
  afterEach(() => {
    for (const dispatch of dispatches.splice(0)) dispatch.kill('SIGKILL');
    killAll([...started, ...pidsOfRuns(handle.root)]);
    started.clear();
    for (const name of ['.dispatch-runs', path.join('.waves', 'leases.jsonl'), ...(options.clean ?? [])]) {
      rmSync(path.join(handle.root, name), { recursive: true, force: true });
    }
  });
  return handle;
}
