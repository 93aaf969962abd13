/**
 * `pnpm bench worktree-setup --root DIR [--runs 3] [--results bench/RESULTS.md]`: what the default
 * worktree setup costs — `pnpm install --frozen-lockfile --prefer-offline` in a fresh worktree of a
 * real pnpm monorepo (DIR, a git clone), run as a supervisor runs it (runVerify: argv, no shell,
 * the scrubbed environment, its log, the process tree stopped after). Each run makes a worktree
 * with an empty pnpm store and metadata cache (cold: everything comes from the registry), then a
 * second worktree on the same store (warm: what the second run of a wave pays).
 *
 * NOTE: the installed pnpm runs itself (`manage-package-manager-versions` off): pnpm 10.34 refuses
 * to switch to the version a repository's `packageManager` pins when the registry holds no
 * signature for it (zod pins 10.12.1), which would fail the setup on this machine — a setting of
 * the person's pnpm, not of waves.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runVerify } from '../packages/dispatch/dist/index.js';
import { writeResultBlock } from './lib/results.js';

const { values } = parseArgs({ options: { root: { type: 'string' }, runs: { type: 'string', default: '3' }, results: { type: 'string' }, name: { type: 'string' } } });
if (!values.root) {
  console.log('usage: pnpm bench worktree-setup --root DIR [--runs 3] [--results bench/RESULTS.md]');
  process.exit(2);
}
const root = path.resolve(values.root);
const name = values.name ?? path.basename(root);
const runs = Number(values.runs);
const SETUP = ['pnpm', 'install', '--frozen-lockfile', '--prefer-offline'];
const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
const commit = git('rev-parse', 'HEAD');
// HUSKY=0 as the supervisor sets it for setup commands (supervise.ts).
const PNPM_ENV = { npm_config_manage_package_manager_versions: 'false', HUSKY: '0' };
const scratch = mkdtempSync(path.join(tmpdir(), 'waves-setup-bench-'));

/** A fresh worktree of HEAD (detached), as `waves dispatch --worktree` makes one. */
function worktree(label: string): string {
  const dir = path.join(scratch, label);
  git('worktree', 'add', '--detach', '--quiet', dir, 'HEAD');
  return dir;
}
function forget(dir: string): void {
  git('worktree', 'remove', '--force', dir);
}
/** The packages pnpm put in the worktree's virtual store. */
const installed = (dir: string) => readdirSync(path.join(dir, 'node_modules', '.pnpm')).filter((n) => n !== 'node_modules' && !n.startsWith('.')).length;

async function setUp(dir: string, store: string): Promise<{ ms: number; ok: boolean }> {
  const env = { ...process.env, ...PNPM_ENV, npm_config_store_dir: path.join(store, 'store'), npm_config_cache_dir: path.join(store, 'cache') };
  const [result] = await runVerify([SETUP], { cwd: dir, log: path.join(scratch, `${path.basename(dir)}.log`), timeoutMs: 30 * 60_000, env });
  return { ms: result!.durationMs, ok: result!.status === 'passed' };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

try {
  const cold: number[] = [];
  const warm: number[] = [];
  let packages = 0;
  for (let run = 1; run <= runs; run++) {
    const store = path.join(scratch, `store-${run}`);
    mkdirSync(store);
    const first = worktree(`cold-${run}`);
    const a = await setUp(first, store);
    if (!a.ok) throw new Error(`cold install ${run} failed: see ${scratch}/cold-${run}.log`);
    packages = installed(first);
    const second = worktree(`warm-${run}`);
    const b = await setUp(second, store);
    if (!b.ok) throw new Error(`warm install ${run} failed: see ${scratch}/warm-${run}.log`);
    cold.push(a.ms);
    warm.push(b.ms);
    console.log(`run ${run}: cold ${s(a.ms)}, warm ${s(b.ms)}`);
    forget(first);
    forget(second);
    rmSync(store, { recursive: true, force: true });
  }
  const pnpm = execFileSync('pnpm', ['--version'], { cwd: root, encoding: 'utf8', env: { ...process.env, ...PNPM_ENV } }).trim();
  const table = [
    `### Worktree setup: ${name}`,
    '',
    `\`${SETUP.join(' ')}\` in a fresh worktree of ${name} (\`${commit}\`, ${packages} packages in its virtual store), run as the supervisor runs it; pnpm ${pnpm}, Node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ${new Date().toISOString().slice(0, 10)}. Cold: an empty store and metadata cache, everything from the npm registry; warm: a second worktree on the store the first filled. pnpm's own version switch off (zod pins pnpm 10.12.1, whose download this pnpm refuses: no registry signature). Medians of ${runs} runs (min–max).`,
    '',
    '| worktree | median | min–max | runs |',
    '|---|---|---|---|',
    `| first (cold store) | ${s(median(cold))} | ${s(Math.min(...cold))}–${s(Math.max(...cold))} | ${cold.map(s).join(', ')} |`,
    `| second (warm store) | ${s(median(warm))} | ${s(Math.min(...warm))}–${s(Math.max(...warm))} | ${warm.map(s).join(', ')} |`,
  ].join('\n');
  console.log(`\n${table}`);
  if (values.results) writeResultBlock(path.resolve(values.results), `worktree-setup:${name}`, table);
} finally {
  git('worktree', 'prune');
  rmSync(scratch, { recursive: true, force: true });
}
