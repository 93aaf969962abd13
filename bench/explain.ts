/**
 * `pnpm bench explain --root DIR`: after `pnpm bench graph`, sorts every edge on which a peer and
 * waves disagree into a class, with examples, so that RESULTS.md can explain each class. An edge
 * only waves has is classified by the import that produced it; an edge only the peer has, by how
 * it relates to waves' edges from the same file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isSourceFile, listRepoFiles, ModuleResolver, packageName, readWorkspace, scanImports } from '../packages/planner/dist/index.js';
import { writeResultBlock } from './lib/results.js';

const { values } = parseArgs({ options: { root: { type: 'string' }, name: { type: 'string' }, tools: { type: 'string', default: 'dpdm,madge,depcruise,skott' }, results: { type: 'string' } } });
if (!values.root) {
  console.log('usage: pnpm bench explain --root DIR [--tools dpdm,madge,depcruise,skott] [--results bench/RESULTS.md]');
  process.exit(2);
}
const BENCH = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(values.root);
const name = values.name ?? path.basename(root);
const out = path.join(BENCH, '.out', name);
const { files } = await listRepoFiles(root);
const { members } = await readWorkspace(root, files);
const resolver = new ModuleResolver({ root, files, members });
const details = JSON.parse(readFileSync(path.join(out, 'disagreements.json'), 'utf8')) as Record<string, { onlyTool: string[]; onlyWaves: string[] }>;
const waves = JSON.parse(readFileSync(path.join(out, 'waves-cold.json'), 'utf8')) as { edges: [string, string][] };
const wavesFrom = new Map<string, string[]>();
for (const [from, to] of waves.edges) wavesFrom.set(from, [...(wavesFrom.get(from) ?? []), to]);
const memberOf = (file: string) => members.filter((m) => m.dir === '' || file.startsWith(`${m.dir}/`)).sort((a, b) => b.dir.length - a.dir.length)[0];

const importsCache = new Map<string, ReturnType<typeof scanImports>>();
function importsOf(file: string) {
  let imports = importsCache.get(file);
  if (!imports) {
    imports = isSourceFile(file) ? scanImports(readFileSync(path.join(root, file), 'utf8')) : [];
    importsCache.set(file, imports);
  }
  return imports;
}

function classifyOnlyWaves(from: string, to: string): string {
  const hit = importsOf(from).find((i) => {
    const r = resolver.resolve(i.specifier, from);
    return r.kind === 'file' && r.path === to;
  });
  if (!hit) return 'not reproduced';
  const s = hit.specifier;
  if (s.startsWith('.')) {
    if (hit.kind === 'type') return 'relative, type-only import';
    if (hit.kind === 'dynamic' || hit.kind === 'require') return `relative, ${hit.kind}`;
    if (/\.(?:m|c)?js$/.test(s) && /\.(?:m|c)?tsx?$/.test(to)) return 'relative, .js written for a .ts source';
    return hit.kind === 'reexport' ? 'relative, re-export' : 'relative import';
  }
  if (s.startsWith('#')) return 'package.json "imports" (#x)';
  const pkg = packageName(s);
  const member = members.find((m) => m.name === pkg);
  if (member) return memberOf(from)?.name === pkg ? 'self-reference through package exports' : 'workspace package by name, resolved from its manifest (no node_modules)';
  return 'tsconfig paths / baseUrl alias';
}

function classifyOnlyTool(from: string, to: string): string {
  const stem = (p: string) => p.replace(/\.d\.[mc]?ts$|\.[mc]?[jt]sx?$/, '');
  const mine = wavesFrom.get(from) ?? [];
  if (mine.some((t) => stem(t) === stem(to))) return `resolution preference: waves picks ${path.extname(mine.find((t) => stem(t) === stem(to))!)} where the tool picks ${to.endsWith('.d.ts') ? '.d.ts' : path.extname(to)}`;
  if (to.endsWith('.d.ts')) return 'a declaration file (.d.ts)';
  const text = readFileSync(path.join(root, from), 'utf8');
  const base = path.basename(to).replace(/\.[^.]+$/, '');
  if (new RegExp(`new URL\\(['"][^'"]*${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(text)) return 'new URL("./x", import.meta.url)';
  const specifier = importsOf(from).find((i) => i.specifier.includes(base));
  if (specifier) return `import waves resolves elsewhere or not at all (${specifier.specifier} → ${JSON.stringify(resolver.resolve(specifier.specifier, from))})`;
  return 'no import of it that waves sees';
}

const lines: string[] = [`#### Why the edges differ — ${name}`, ''];
for (const tool of values.tools!.split(',')) {
  const d = details[tool];
  if (!d) continue;
  const classes = new Map<string, string[]>();
  const add = (key: string, edge: string) => classes.set(key, [...(classes.get(key) ?? []), edge]);
  for (const edge of d.onlyWaves) add(`only waves: ${classifyOnlyWaves(...(edge.split('\t') as [string, string]))}`, edge);
  for (const edge of d.onlyTool) add(`only ${tool}: ${classifyOnlyTool(...(edge.split('\t') as [string, string]))}`, edge);
  if (classes.size === 0) continue;
  lines.push(`${tool} (first 200 of each side):`, '');
  for (const [key, edges] of [...classes].sort((a, b) => b[1].length - a[1].length)) {
    lines.push(`- ${key}: ${edges.length}, e.g. \`${edges[0]!.replace('\t', ' → ')}\``);
  }
  lines.push('');
}
const text = lines.join('\n');
console.log(text);
if (values.results) writeResultBlock(values.results, `explain:${name}`, text);
