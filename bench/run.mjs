#!/usr/bin/env node
// `pnpm bench <name> [args]`: installs the benchmark's own dependencies on first use (the peers
// compared against are devDependencies of bench/ only, never of waves), builds waves, then runs
// bench/<name>.ts with tsx. Paths in the arguments are taken from where the command was started.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const bench = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(bench);
const [name, ...args] = process.argv.slice(2);
const available = ['graph', 'plan', 'explain', 'backtest', 'backtests', 'worktree-setup', 'fence-check', 'git-leases', 'inference-reports', 'inference-backtests', 'inference-speed', 'inference-vague', 'plan-conflicting'];
if (!name || !available.includes(name)) {
  console.error(`usage: pnpm bench <${available.join('|')}> [options]   (pnpm bench graph --help)`);
  process.exit(2);
}
const run = (cmd, cmdArgs, cwd) => {
  const result = spawnSync(cmd, cmdArgs, { cwd, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
if (!existsSync(path.join(bench, 'node_modules', 'tsx'))) {
  const pnpm = process.env.npm_execpath && /pnpm/.test(process.env.npm_execpath) ? ['node', process.env.npm_execpath] : ['pnpm'];
  run(pnpm[0], [...pnpm.slice(1), 'install', '--ignore-workspace'], bench);
}
run('node', [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'packages/cli'], root);
const from = process.env.INIT_CWD ?? process.cwd();
const absolute = args.map((arg, i) => {
  const flag = args[i - 1];
  if (flag === '--root' || flag === '--results' || flag === '--waves' || flag === '--repo' || flag === '--reports' || flag === '--before') return path.resolve(from, arg);
  if (flag === '--repos') return arg.split(',').map((dir) => path.resolve(from, dir)).join(',');
  return arg;
});
run('node', ['--import', 'tsx', path.join(bench, `${name}.ts`), ...absolute], bench);
