/**
 * `pnpm bench git-leases [--runs 30] [--clients 4] [--rounds 15] [--results bench/RESULTS.md]`:
 * the git lease backend against a local bare repository standing for the remote (file transport).
 *
 * - acquisition latency, median and p95, with 10 and with 1,000 live leases in the table: in this
 *   process (the blob cache warm, as the supervisor's renewals are) and each in a fresh process
 *   (cold, as one `waves lease acquire` is; node's start-up not counted);
 * - throughput under contention: N client processes acquiring and releasing in a loop, each its own
 *   path (distinct), or all the same path.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gitLeaseBackend } from '../packages/dispatch/dist/index.js';
import { writeResultBlock } from './lib/results.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, clients: { type: 'string', default: '4' }, rounds: { type: 'string', default: '15' }, results: { type: 'string' } } });
const RUNS = Number(values.runs);
const CLIENTS = Number(values.clients);
const ROUNDS = Number(values.rounds);
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const CLIENT = path.join(BENCH, 'tools', 'lease-client.mjs');
const run = promisify(execFile);

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const ms = (x: number) => x.toFixed(0);

async function withRemote<T>(live: number, fn: (url: string, dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'waves-bench-leases-'));
  try {
    const url = path.join(dir, 'remote.git');
    spawnSync('git', ['init', '-q', '--bare', url]);
    const filler = gitLeaseBackend({ url, remoteName: 'bench', ref: 'refs/waves/leases', skewMs: 0, now: () => new Date(), storeDir: path.join(dir, 'filler.git') });
    for (let i = 0; i < live; i += 100) {
      const lanes = Array.from({ length: Math.min(100, live - i) }, (_, k) => `bulk/${i + k}/file.ts`);
      await filler.acquire(lanes, { holder: 'filler', ttlMs: 3_600_000 });
    }
    return await fn(url, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function latency(live: number) {
  return withRemote(live, async (url, dir) => {
    const warm = gitLeaseBackend({ url, remoteName: 'bench', ref: 'refs/waves/leases', skewMs: 0, now: () => new Date(), storeDir: path.join(dir, 'warm.git') });
    await warm.list(); // one read: the cache holds the table's blobs, as a supervisor's does after its first renewal
    const hot: number[] = [];
    const cold: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const [result] = await warm.acquire([`work/${i}.ts`], { holder: 'bench', ttlMs: 3_600_000 });
      hot.push(performance.now() - started);
      if (result?.status === 'acquired') await warm.release([result.id]);
      const { stdout } = await run(process.execPath, [CLIENT, url, path.join(dir, 'cold.git'), 'once', `cold/${i}.ts`]);
      cold.push((JSON.parse(stdout) as { ms: number }).ms);
    }
    return { hot, cold };
  });
}

async function contention(same: boolean, live = 10) {
  return withRemote(live, async (url, dir) => {
    const started = performance.now();
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => run(process.execPath, [CLIENT, url, path.join(dir, `client-${i}.git`), 'loop', same ? 'shared/file.ts' : `own/${i}.ts`, String(ROUNDS)])),
    );
    const wall = performance.now() - started;
    const tallies = clients.map((c) => JSON.parse(c.stdout) as { acquired: number; refused: number; busy: number });
    const sum = (key: 'acquired' | 'refused' | 'busy') => tallies.reduce((n, t) => n + t[key], 0);
    return { wall, acquired: sum('acquired'), refused: sum('refused'), busy: sum('busy'), attempts: CLIENTS * ROUNDS };
  });
}

const git = spawnSync('git', ['--version'], { encoding: 'utf8' }).stdout.trim();
const rows: string[] = [];
const figures: Record<number, { hot: number[]; cold: number[] }> = {};
for (const live of [10, 1_000]) {
  figures[live] = await latency(live);
  const { hot, cold } = figures[live]!;
  rows.push(`| ${live.toLocaleString('en')} | ${ms(quantile(hot, 0.5))} | ${ms(quantile(hot, 0.95))} | ${ms(quantile(cold, 0.5))} | ${ms(quantile(cold, 0.95))} |`);
  console.error(rows.at(-1));
}
const ratio = (which: 'hot' | 'cold') => (quantile(figures[1_000]![which], 0.5) / quantile(figures[10]![which], 0.5)).toFixed(2);
const distinct = await contention(false);
const distinctMany = await contention(false, 1_000);
const same = await contention(true);
const perSecond = (n: number, wall: number) => ((n * 2) / (wall / 1000)).toFixed(1);
const block = [
  `### Git lease backend — local bare remote (file transport)`,
  '',
  `${RUNS} acquisitions per row, each of a new path (released after, not timed); ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.version}, ${git}; ${new Date().toISOString().slice(0, 10)}; load average ${loadavg()[0]!.toFixed(1)} at the end (the machine is shared).`,
  '"warm": in one process whose blob cache already holds the table (a supervisor renewing); "cold": each in a fresh process, as one `waves lease acquire` (node start-up not counted). One acquisition is a fetch, a read of the tree, the new commit (hash-object, mktree ×3, commit-tree) and a push.',
  '',
  '| live leases | warm median ms | warm p95 ms | cold median ms | cold p95 ms |',
  '|---|---|---|---|---|',
  ...rows,
  '',
  `1,000 live leases against 10, median: ×${ratio('hot')} warm, ×${ratio('cold')} cold (goal: at most ×2).`,
  '',
  `Contention: ${CLIENTS} client processes × ${ROUNDS} rounds of acquire + release. Every change swaps the one ref, so writers of distinct paths contend too: a lost swap re-reads and retries.`,
  '',
  '| paths | other live leases | wall s | acquired | refused | busy (every retry lost) | table changes / s |',
  '|---|---|---|---|---|---|---|',
  `| distinct (one each) | 10 | ${(distinct.wall / 1000).toFixed(1)} | ${distinct.acquired}/${distinct.attempts} | ${distinct.refused} | ${distinct.busy} | ${perSecond(distinct.acquired, distinct.wall)} |`,
  `| distinct (one each) | 1,000 | ${(distinctMany.wall / 1000).toFixed(1)} | ${distinctMany.acquired}/${distinctMany.attempts} | ${distinctMany.refused} | ${distinctMany.busy} | ${perSecond(distinctMany.acquired, distinctMany.wall)} |`,
  `| the same path | 10 | ${(same.wall / 1000).toFixed(1)} | ${same.acquired}/${same.attempts} | ${same.refused} | ${same.busy} | ${perSecond(same.acquired, same.wall)} |`,
  '',
  'Not measured: a remote over ssh or https (this machine runs no sshd and no TLS server); there the fetch and the push each add a network round trip and the server\'s work.',
].join('\n');
console.log(block);
if (values.results) writeResultBlock(path.resolve(values.results), 'git-leases', block);
