/**
 * A plan as a GitHub comment: the summary line, a table per wave, the other buckets with their
 * reasons, and the conflicts in a collapsed block. Issue text is escaped so that it cannot break
 * a table, inject HTML or mention anyone.
 */
import { heldBecause } from './plan-table.js';
import { invisibleExcept, type Plan } from '@waves/planner';

const INVISIBLE = invisibleExcept();

/** Text for a GitHub markdown table cell. */
export function markdownCell(text: string): string {
  return (
    text
      .replace(INVISIBLE, ' ')
      .replace(/&/g, '&amp;')
      // Before any entity is written (each holds a `#`): GitHub makes `#12` and `org/repo#12` issue references.
      .replace(/#/g, '&#35;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/\|/g, '&#124;')
      .replace(/@/g, '&#64;')
      .replace(/([\\`*_[\]~])/g, '\\$1')
      // GitHub links these without any markup: a URL, a `www.` name, `GH-12` — a title would put a
      // live link, or a cross-reference on another repository's issue, into the plan's comment.
      .replace(/:\/\//g, '&#58;//')
      // Wherever it stands: GFM links `www.` after `_`, `*`, `~` or `(` too, where `\b` does not hold.
      .replace(/(www)\./gi, '$1&#46;')
      .replace(/\b(GH)-(?=\d)/gi, '$1&#45;')
      .trim()
  );
}

function code(path: string): string {
  return `<code>${markdownCell(path).replace(/\\([\\`*_[\]~])/g, '$1')}</code>`;
}

function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function renderPlanMarkdown(plan: Plan): string {
  const out: string[] = ['### Wave plan', '', `**${plan.summaryLine}**${plan.summary.waves > 0 && !plan.summary.optimal ? ' (wave count not proven minimal)' : ''}`, ''];
  if (plan.waves.length === 0) out.push('No wave: nothing is dispatchable.', '');
  for (const wave of plan.waves) {
    out.push(`#### Wave ${wave.index} · ${wave.kind === 'serial_singleton' ? 'serial (runs alone)' : 'parallel'}`, '');
    out.push(
      table(
        ['#', 'Title', 'Paths / lanes', 'Kind'],
        wave.issues.map((i) => [
          `#${i.number}`,
          markdownCell(i.title),
          (i.paths.length > 0 ? i.paths : i.lanes).map(code).join('<br>'),
          [i.serial ? `serial: ${markdownCell(i.serial)}` : 'parallel', i.dependsOn.length > 0 ? `after ${i.dependsOn.map((n) => `#${n}`).join(', ')}` : ''].filter(Boolean).join('<br>'),
        ]),
      ),
      '',
    );
  }
  const section = (title: string, head: string[], rows: string[][]) => {
    if (rows.length > 0) out.push(`#### ${title} (${rows.length})`, '', table(head, rows), '');
  };
  section('Subdivide', ['#', 'Title', 'Reason', 'Children'], plan.subdivide.map((i) => [`#${i.number}`, markdownCell(i.title), markdownCell(i.reason), String(i.childBudget)]));
  section('Triage', ['#', 'Title', 'Reason'], plan.triage.map((i) => [`#${i.number}`, markdownCell(i.title), markdownCell(i.reason)]));
  section(
    'Held',
    ['#', 'Title', 'Held because'],
    plan.held.map((i) => [`#${i.number}`, markdownCell(i.title), markdownCell(heldBecause(i))]),
  );
  section('Deferred', ['#', 'Title', 'Reason'], plan.deferred.map((i) => [`#${i.number}`, markdownCell(i.title), markdownCell(i.reason)]));
  if (plan.conflicts.length > 0) {
    out.push(
      '<details>',
      `<summary>Conflicts (${plan.conflicts.length})</summary>`,
      '',
      table(['Issues', 'Kind', 'Evidence'], plan.conflicts.map((c) => [`#${c.a} · #${c.b}`, c.kind, markdownCell(c.detail)])),
      '',
      '</details>',
      '',
    );
  }
  return `${out.join('\n').trimEnd()}\n`;
}
