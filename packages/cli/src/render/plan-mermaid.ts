/**
 * A plan as a Mermaid flowchart, which GitHub renders in comments and markdown files: one
 * subgraph per wave, the other buckets in a subgraph of their own, conflicts as labelled edges.
 * Every text is encoded with Mermaid's entity codes, so no issue title can break the diagram.
 */
import type { Plan } from '@waves/planner';

/**
 * A label safe inside Mermaid's double quotes. Control characters and line separators become
 * spaces; bidirectional marks, embeddings, overrides and isolates are dropped, so that a title
 * cannot reorder how the rendered diagram (or the text of the comment) reads.
 */
export function mermaidText(text: string, max = 60): string {
  const flat = text
    .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const short = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  // Mermaid entity codes: #35; for '#', #quot; for '"'; everything that could close or nest syntax.
  return short.replace(/[#"<>`&\\[\]{}()|;]/g, (c) => `#${c.charCodeAt(0)};`);
}

/**
 * The most edges a diagram draws: Mermaid (and GitHub's renderer with it) refuses a flowchart of
 * 500 edges or more ("Edge limit exceeded"), which 33 issues that all conflict already make.
 * Dependencies are drawn first (they say what runs before what); conflicts past the limit are
 * counted in a note, and every one of them stays in the JSON.
 */
export const MAX_MERMAID_EDGES = 400;

/** Mermaid renders no diagram of more than 50,000 characters (`maxTextSize`): titles are shortened, then left out, to stay under it. */
export const MAX_MERMAID_TEXT = 45_000;

export function renderPlanMermaid(plan: Plan): string {
  let text = '';
  for (const width of [60, 24, 0]) {
    text = renderAtWidth(plan, width);
    if (text.length <= MAX_MERMAID_TEXT) break;
  }
  return text;
}

/** The diagram with titles cut to `width` characters (0: issue numbers alone). */
function renderAtWidth(plan: Plan, width: number): string {
  const label = (number: number, title: string, suffix = '') => mermaidText(width > 0 ? `#${number} ${title}${suffix}` : `#${number}${suffix}`, width > 0 ? width : 40);
  const lines = ['flowchart TB'];
  const node = (n: number) => `i${n}`;
  const shown = new Set<number>();
  for (const wave of plan.waves) {
    lines.push(`  subgraph w${wave.index}["${mermaidText(`Wave ${wave.index} · ${wave.kind === 'serial_singleton' ? 'serial' : 'parallel'}`)}"]`);
    for (const issue of wave.issues) {
      lines.push(`    ${node(issue.number)}["${label(issue.number, issue.title)}"]`);
      shown.add(issue.number);
    }
    lines.push('  end');
  }
  const others: [number, string, string][] = [
    ...plan.subdivide.map((i): [number, string, string] => [i.number, i.title, 'subdivide']),
    ...plan.triage.map((i): [number, string, string] => [i.number, i.title, 'triage']),
    ...plan.held.map((i): [number, string, string] => [i.number, i.title, 'held']),
    ...plan.deferred.map((i): [number, string, string] => [i.number, i.title, 'deferred']),
  ];
  if (others.length > 0) {
    lines.push(`  subgraph rest["${mermaidText('Not in a wave')}"]`);
    for (const [number, title, bucket] of others) {
      lines.push(`    ${node(number)}["${label(number, title, ` (${bucket})`)}"]`);
      shown.add(number);
    }
    lines.push('  end');
  }
  const drawn = plan.conflicts.filter((c) => c.kind !== 'serial' && shown.has(c.a) && shown.has(c.b));
  const ordered = [...drawn.filter((c) => c.kind === 'dependency'), ...drawn.filter((c) => c.kind !== 'dependency')];
  for (const c of ordered.slice(0, MAX_MERMAID_EDGES)) {
    if (c.kind === 'dependency') {
      // `#b depends on #a` or the reverse: draw the arrow from the prerequisite.
      const dependent = c.detail.startsWith(`#${c.a} `) ? c.a : c.b;
      const prerequisite = dependent === c.a ? c.b : c.a;
      lines.push(`  ${node(prerequisite)} -->|"${mermaidText('before')}"| ${node(dependent)}`);
    } else lines.push(`  ${node(c.a)} -.-|"${mermaidText(c.kind)}"| ${node(c.b)}`);
  }
  if (ordered.length > MAX_MERMAID_EDGES) {
    lines.push(`  more["${mermaidText(`${ordered.length - MAX_MERMAID_EDGES} more conflicts not drawn, Mermaid draws at most 500 edges: see --format json`, 120)}"]`);
  }
  return `${lines.join('\n')}\n`;
}
