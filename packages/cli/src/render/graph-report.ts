/**
 * Renderers of `waves graph`: tables for people, and package-level diagrams (Mermaid, Graphviz
 * dot). Each returns a string; only the CLI prints.
 */
import Table from 'cli-table3';
import type { GraphReport } from '@waves/planner';
import { mermaidText } from './plan-mermaid.js';
import { safeText, UNSAFE_CHARACTERS } from './safe-text.js';

const n = (x: number) => x.toLocaleString('en-US');

function table(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [] }, wordWrap: true });
}

export function renderGraphTable(report: GraphReport): string {
  const out: string[] = [];
  const kinds = Object.entries(report.edgesByKind)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${n(count)}`)
    .join(' · ');
  out.push(`Import graph of ${safeText(report.root)}${report.head ? ` at ${report.head.slice(0, 12)}` : ''}`);
  const json = report.jsonFiles > 0 ? ` · ${n(report.jsonFiles)} imported JSON file(s)` : '';
  out.push(`  ${n(report.files)} source files${json} · ${n(report.imports)} imports${kinds ? ` (${kinds})` : ''}`);
  out.push(`  ${n(report.unresolved.length)} unresolved internal specifier(s) · ${n(report.external)} third-party or asset import(s)`, '');
  if (report.packages.length > 0) {
    const t = table(['Package', 'Directory', 'Files', 'Depends on']);
    for (const p of report.packages) t.push([safeText(p.name), p.dir === '' ? '.' : safeText(p.dir), n(p.files), p.dependsOn.map((d) => safeText(d)).join('\n') || '—']);
    out.push(`Workspace packages (${report.packages.length})`, t.toString(), '');
  }
  if (report.hubs.length > 0) {
    const t = table(['Hub', 'Dependents', 'Fan-in', 'Barrel']);
    for (const h of report.hubs) t.push([safeText(h.file), `${n(h.dependents)} (${Math.round((100 * h.dependents) / Math.max(1, report.files + report.jsonFiles))}%)`, n(h.fanIn), h.barrel ? 'yes' : '']);
    out.push(`Hubs (${report.hubs.length}): files more than a quarter of the repository depends on (issues touching them run alone only with "hubs" in the config)`, t.toString(), '');
  } else out.push('Hubs: none', '');
  if (report.barrels.length > 0) {
    out.push(`Barrels (${report.barrels.length})`);
    for (const b of report.barrels.slice(0, 20)) out.push(`  ${safeText(b)}`);
    if (report.barrels.length > 20) out.push(`  … ${report.barrels.length - 20} more (see --json)`);
    out.push('');
  }
  if (report.skipped.length > 0) {
    const t = table(['Not read', 'Why']);
    for (const s of report.skipped.slice(0, 20)) t.push([safeText(s.file), s.reason]);
    out.push(`Skipped (${report.skipped.length})`, t.toString());
    if (report.skipped.length > 20) out.push(`  … ${report.skipped.length - 20} more (see --json)`);
    out.push('');
  }
  if (report.unresolved.length > 0) {
    const t = table(['From', 'Specifier']);
    for (const u of report.unresolved.slice(0, 20)) t.push([safeText(u.from), safeText(u.specifier, 100)]);
    out.push(`Unresolved (${report.unresolved.length})`, t.toString());
    if (report.unresolved.length > 20) out.push(`  … ${report.unresolved.length - 20} more (see --json)`);
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** Mermaid flowchart of the workspace packages and their internal dependencies. */
export function renderGraphMermaid(report: GraphReport): string {
  const ids = new Map(report.packages.map((p, i) => [p.name, `p${i}`]));
  // Package names come from the repository's manifests: escaped as the plan's diagram escapes titles
  // (no control character or bidi mark, no brace that could open a `%%{init…}%%` directive: red team L6).
  const lines = ['flowchart LR'];
  for (const p of report.packages) lines.push(`  ${ids.get(p.name)}["${mermaidText(p.name, 300)} (${p.files})"]`);
  for (const p of report.packages) for (const d of p.dependsOn) if (ids.has(d)) lines.push(`  ${ids.get(p.name)} --> ${ids.get(d)}`);
  return `${lines.join('\n')}\n`;
}

/** Graphviz dot of the workspace packages and their internal dependencies. */
export function renderGraphDot(report: GraphReport): string {
  const escape = (text: string) => text.replace(/[\\"]/g, (c) => `\\${c}`).replace(UNSAFE_CHARACTERS, ' ');
  const quote = (text: string) => `"${escape(text)}"`;
  const lines = ['digraph packages {', '  rankdir=LR;', '  node [shape=box];'];
  for (const p of report.packages) lines.push(`  ${quote(p.name)} [label="${escape(p.name)}\\n${p.files} file(s)"];`);
  for (const p of report.packages) for (const d of p.dependsOn) lines.push(`  ${quote(p.name)} -> ${quote(d)};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
