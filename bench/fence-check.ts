/**
 * `pnpm bench fence-check --root DIR [--calls 200] [--results bench/RESULTS.md]`: the latency of one
 * live-fence check on a real repository, warm (the run's supervisor has loaded the graph from the
 * cache when the run started). Measured, each over `--calls` calls, median and p95:
 *
 * - the supervisor's decision alone (`keeper.check`), for a path inside the fence, one refused by
 *   an import of another run's leased file, and a new path granted (a lease appended, fsynced);
 * - a round trip on the run's socket from a process already running (what opencode's plugin pays:
 *   it asks in opencode's own process);
 * - `waves fence check --hook claude` as Claude Code runs it, a new Node process per edit (what the
 *   Claude hook pays), beside `node -e 0` (what any Node hook pays to start);
 * - once: loading the graph and tree from the cache when the run starts.
 *
 * The repository must have a graph cache (`waves graph --root DIR` once).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { acquireLease, askFence, createFenceKeeper, rulesFromCache, startFenceServer, watchTree } from '../packages/dispatch/dist/index.js';
import { writeResultBlock } from './lib/results.js';

const { values } = parseArgs({ options: { root: { type: 'string' }, calls: { type: 'string', default: '200' }, results: { type: 'string' }, name: { type: 'string' } } });
if (!values.root) {
  console.log('usage: pnpm bench fence-check --root DIR [--calls 200] [--results bench/RESULTS.md]');
  process.exit(2);
}
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const BIN = path.join(BENCH, '..', 'packages/cli/bin/waves.js');
const root = path.resolve(values.root);
const calls = Number(values.calls);
const state = mkdtempSync(path.join(tmpdir(), 'wfb-'));
const env = { ...process.env, WAVES_STATE_DIR: state, WAVES_FENCE_TICKET: 'bench-fence-key-0123456789' };
process.env.WAVES_STATE_DIR = state;
const journal = path.join(state, 'leases.jsonl');
const runId = 'resolve-1-20261201T000000000Z';

const t0 = performance.now();
const rules = await rulesFromCache(root);
const loadMs = performance.now() - t0;
const graph = rules.graph!;
// A file of the fence, and one that imports a file another run leases.
const edges = graph.mapEdges((_e, _a, from, to) => [from, to] as const).filter(([from, to]) => from.split('/')[0] === to.split('/')[0]);
const [importer, imported] = edges[Math.floor(edges.length / 2)]!;
const fenced = graph.nodes().find((f) => f !== importer && f !== imported && !graph.hasEdge(f, imported) && !graph.hasEdge(imported, f))!;
await acquireLease(journal, { lane: imported, holder: 'other@host/resolve-2-20261201T000000000Z', ttlMs: 3_600_000, now: () => new Date() });
const keeper = createFenceKeeper({
  root,
  tree: root,
  journal,
  rules: { holder: `bench@host/${runId}`, contentionDepth: 1, serial: [], onRefusal: 'tell' },
  fence: [fenced],
  ttlMs: 3_600_000,
  now: () => new Date(),
  ownFiles: [],
  log: { installed: [], extensions: [], refusals: [] },
  onChange: async () => undefined,
  loadRules: async () => rules,
});
const server = await startFenceServer(runId, keeper, env, String(env.WAVES_FENCE_TICKET));

/** A process run to its end without blocking this one (the checker answers from this process's loop). */
function run(argv: string[], input: string | null): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

async function measure(label: string, fn: (i: number) => Promise<unknown> | unknown): Promise<{ label: string; median: number; p95: number }> {
  await fn(-1);
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { label, median: times[Math.floor(times.length / 2)]!, p95: times[Math.floor(times.length * 0.95)]! };
}

const check = async (p: string, expected: string) => {
  const [result] = await keeper.check([p], 'cli');
  if (result!.status !== expected) throw new Error(`${p}: expected ${expected}, got ${result!.status} (${result!.message})`);
};
const dir = path.posix.dirname(fenced);
const payload = readFileSync(path.join(BENCH, '..', 'test/fixtures/hooks/claude-edit.json'), 'utf8').replaceAll('/WORKTREE/packages/api/src/routes/checkout.ts', path.join(root, fenced)).replaceAll('/WORKTREE', root);
const rows = [
  await measure('decision: inside the fence', () => check(fenced, 'allowed')),
  await measure('decision: refused (import of a leased file)', () => check(importer, 'refused')),
  await measure('decision: granted (a new lease, fsynced)', (i) => check(`${dir}/bench-new-${i + 1}.ts`, 'granted')),
  await measure('socket round trip (opencode plugin, in-process)', async () => {
    const answer = await askFence(runId, [fenced], 'opencode', { env });
    if ('error' in answer) throw new Error(answer.error);
  }),
  await measure('node -e 0 (any Node hook: process start)', () => run([process.execPath, '-e', '0'], null)),
  await measure('waves fence check --hook claude (new process)', async () => {
    const result = await run([process.execPath, BIN, 'fence', 'check', '--hook', 'claude', '--run', runId], payload);
    if (result.status !== 0 || result.stdout !== '') throw new Error(`hook: ${result.status} ${result.stdout} ${result.stderr}`);
  }),
];
await server.close();
await keeper.close();
// The watcher's start: every folder of the tree watched (node_modules and .git skipped).
const w0 = performance.now();
const watcher = watchTree(root, () => undefined);
await watcher.ready;
const watchMs = performance.now() - w0;
watcher.close();
rmSync(state, { recursive: true, force: true });

const name = values.name ?? path.basename(root);
const table = [
  `Live fence check on ${name} (${graph.order} files in the graph; graph and tree loaded from the cache in ${loadMs.toFixed(0)} ms when the run starts), ${calls} calls each, warm; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}:`,
  '',
  '| what | median | p95 |',
  '|---|---|---|',
  ...rows.map((r) => `| ${r.label} | ${r.median.toFixed(2)} ms | ${r.p95.toFixed(2)} ms |`),
  '',
  `The watcher of the run's tree was ready (every folder watched) in ${watchMs.toFixed(0)} ms.`,
].join('\n');
console.log(table);
if (values.results) writeResultBlock(path.resolve(values.results), `fence-check-${name}`, table);
