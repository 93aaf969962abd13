/**
 * `pnpm bench graph --root DIR`: builds the import graph of a real repository with waves (cold:
 * no cache; warm: nothing changed since the last run) and, in the same run, with the tools a user
 * would otherwise pick — dpdm, madge, dependency-cruiser, skott — alternating the tools run by
 * run. Reports per tool the median whole-process wall time and peak RSS, the edges found (file →
 * file pairs with both ends among the repository's source files), how they compare with waves',
 * and the ratio of each tool's time to waves' cold build.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { measure, median, type Measurement } from './lib/measure.js';
import { writeResultBlock } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const values = benchArgs(
  {
    root: { type: 'string' },
    runs: { type: 'string', default: '3' },
    tools: { type: 'string', default: 'waves-cold,waves-warm,dpdm,madge,depcruise,skott' },
    name: { type: 'string' },
    results: { type: 'string' },
  },
  'pnpm bench graph --root DIR [--runs 3] [--tools waves-cold,waves-warm,dpdm,madge,depcruise,skott] [--name label] [--results bench/RESULTS.md]',
  'root',
);

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const BIN = (tool: string) => path.join(BENCH, 'node_modules', '.bin', tool);
const root = path.resolve(values.root);
const name = values.name ?? path.basename(root);
const runs = Number(values.runs);
const tools = values.tools!.split(',');
const out = path.join(BENCH, '.out', name);
mkdirSync(out, { recursive: true });
const tsconfig = existsSync(path.join(root, 'tsconfig.json')) ? path.join(root, 'tsconfig.json') : null;
const EXTENSIONS = ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs'];

writeFileSync(
  path.join(out, 'depcruise.cjs'),
  `module.exports = { options: {
  tsPreCompilationDeps: true,
  ${tsconfig ? `tsConfig: { fileName: ${JSON.stringify(tsconfig)} },` : ''}
  doNotFollow: { path: 'node_modules' },
  exclude: { path: '(^|/)node_modules/' },
  moduleSystems: ['es6', 'cjs', 'tsd', 'amd'],
  enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], mainFields: ['module', 'main', 'types', 'typings'] },
} };\n`,
);

// dpdm follows project `references` and crashes on some (AFFiNE: a directory named like a file);
// it gets the same configuration without the references, as the research measured it.
let dpdmTsconfig: string | null = tsconfig;
if (tsconfig) {
  try {
    const text = readFileSync(tsconfig, 'utf8');
    if (/"references"\s*:/.test(text)) {
      dpdmTsconfig = path.join(out, 'tsconfig.dpdm.json');
      writeFileSync(dpdmTsconfig, JSON.stringify({ extends: tsconfig, references: [] }));
    }
  } catch {
    dpdmTsconfig = tsconfig;
  }
}

interface Tool {
  run: () => Measurement;
  edges: () => [string, string][];
}

const file = (tool: string) => path.join(out, `${tool}.json`);
const TOOLS: Record<string, Tool> = {
  'waves-cold': {
    run: () => measure('node', [path.join(BENCH, 'tools/waves-graph.mjs'), root, file('waves-cold'), 'cold'], root),
    edges: () => JSON.parse(readFileSync(file('waves-cold'), 'utf8')).edges,
  },
  'waves-warm': {
    run: () => measure('node', [path.join(BENCH, 'tools/waves-graph.mjs'), root, file('waves-warm'), 'warm'], root),
    edges: () => JSON.parse(readFileSync(file('waves-warm'), 'utf8')).edges,
  },
  dpdm: {
    run: () =>
      measure(BIN('dpdm'), ['--no-tree', '--no-warning', '--no-circular', ...(dpdmTsconfig ? ['--tsconfig', dpdmTsconfig] : []), '-o', file('dpdm'), `**/*.{${EXTENSIONS.join(',')}}`], root),
    edges: () => {
      const tree = JSON.parse(readFileSync(file('dpdm'), 'utf8')).tree as Record<string, { id: string | null }[] | null>;
      return Object.entries(tree).flatMap(([from, deps]) => (deps ?? []).filter((d) => d.id).map((d) => [from, d.id!] as [string, string]));
    },
  },
  madge: {
    // madge prints its JSON and exits before a pipe drains (large outputs arrive truncated):
    // the shell sends it to a file instead.
    run: () =>
      measure('sh', ['-c', `"$0" --json --no-spinner --extensions ${EXTENSIONS.join(',')} ${tsconfig ? '--ts-config "$2"' : ''} . > "$1"`, BIN('madge'), file('madge'), tsconfig ?? ''], root),
    edges: () => Object.entries(JSON.parse(readFileSync(file('madge'), 'utf8')) as Record<string, string[]>).flatMap(([from, deps]) => deps.map((to) => [from, to] as [string, string])),
  },
  depcruise: {
    run: () => measure(BIN('depcruise'), ['--config', path.join(out, 'depcruise.cjs'), '--output-type', 'json', '--output-to', file('depcruise'), '.'], root),
    edges: () => {
      const result = JSON.parse(readFileSync(file('depcruise'), 'utf8')) as { modules: { source: string; dependencies: { resolved: string; couldNotResolve: boolean }[] }[] };
      return result.modules.flatMap((m) => m.dependencies.filter((d) => !d.couldNotResolve).map((d) => [m.source, d.resolved] as [string, string]));
    },
  },
  skott: {
    run: () => measure('node', [path.join(BENCH, 'tools/skott-graph.mjs'), root, file('skott')], root),
    edges: () => JSON.parse(readFileSync(file('skott'), 'utf8')).edges,
  },
};

for (const tool of tools) if (!TOOLS[tool]) throw new Error(`unknown tool ${tool}`);
const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim() || 'not a git checkout';
console.error(`bench graph: ${name} (${root} @ ${head}), ${runs} run(s) of ${tools.join(', ')}`);

// Warm-up: the page cache, and a fresh graph cache for the warm runs to reuse.
rmSync(path.join(root, '.waves', 'cache'), { recursive: true, force: true });
TOOLS['waves-warm']!.run();
const samples = new Map<string, Measurement[]>(tools.map((t) => [t, []]));
for (let r = 0; r < runs; r++) {
  for (const tool of tools) {
    try {
      const m = TOOLS[tool]!.run();
      samples.get(tool)!.push(m);
      console.error(`  run ${r + 1} ${tool}: ${m.seconds.toFixed(2)} s, ${m.peakMiB?.toFixed(0) ?? '?'} MiB`);
    } catch (error) {
      console.error(`  run ${r + 1} ${tool}: failed — ${(error as Error).message.split('\n')[0]}`);
    }
  }
}

// Edges normalised to repository-relative file → file pairs between source files.
const nodes = new Set<string>(JSON.parse(readFileSync(file(tools.includes('waves-cold') ? 'waves-cold' : 'waves-warm'), 'utf8')).nodes);
const normal = (p: string) => path.posix.normalize(path.isAbsolute(p) ? path.relative(root, p).split(path.sep).join('/') : p.replace(/^\.\//, ''));
function edgeSet(tool: string): Set<string> {
  const set = new Set<string>();
  for (const [from, to] of TOOLS[tool]!.edges()) {
    const a = normal(from);
    const b = normal(to);
    if (a !== b && nodes.has(a) && nodes.has(b)) set.add(`${a}\t${b}`);
  }
  return set;
}
const wavesEdges = edgeSet(tools.includes('waves-cold') ? 'waves-cold' : 'waves-warm');
const reference = samples.get('waves-cold')?.length ? median(samples.get('waves-cold')!.map((m) => m.seconds)) : null;

const rows: string[] = [];
const details: Record<string, { onlyTool: string[]; onlyWaves: string[] }> = {};
for (const tool of tools) {
  const ms = samples.get(tool)!;
  if (ms.length === 0) {
    rows.push(`| ${tool} | failed | | | | | |`);
    continue;
  }
  const seconds = ms.map((m) => m.seconds);
  const peak = Math.max(...ms.map((m) => m.peakMiB ?? 0));
  let edges: Set<string>;
  try {
    edges = edgeSet(tool);
  } catch {
    edges = new Set();
  }
  const shared = [...edges].filter((e) => wavesEdges.has(e)).length;
  const onlyTool = [...edges].filter((e) => !wavesEdges.has(e));
  const onlyWaves = [...wavesEdges].filter((e) => !edges.has(e));
  details[tool] = { onlyTool: onlyTool.slice(0, 200), onlyWaves: onlyWaves.slice(0, 200) };
  const ratio = reference ? (median(seconds) / reference).toFixed(2) : '—';
  rows.push(
    `| ${tool} | ${median(seconds).toFixed(2)} (${Math.min(...seconds).toFixed(2)}–${Math.max(...seconds).toFixed(2)}) | ${peak.toFixed(0)} | ${ratio} | ${edges.size} | ${shared} | ${onlyTool.length} / ${onlyWaves.length} |`,
  );
}
writeFileSync(path.join(out, 'disagreements.json'), JSON.stringify(details, null, 2));

const cpus = os.cpus();
const table = [
  `### ${name} — ${nodes.size} source files`,
  '',
  `Commit \`${head}\`; ${runs} run(s) per tool, alternating, after one warm-up; ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}; ${new Date().toISOString().slice(0, 10)}.`,
  '',
  '| tool | wall s, median (min–max) | peak RSS MiB | time ÷ waves cold | edges | shared with waves | only tool / only waves |',
  '|---|---|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
console.log(table);

if (values.results) {
  writeResultBlock(values.results, `graph:${name}`, table);
  console.error(`wrote ${values.results}`);
}
