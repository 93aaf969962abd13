/**
 * The human view of a plan: a table per wave, then the other buckets with their reasons, then
 * the summary line. Returns a string; only the CLI prints.
 */
import Table from 'cli-table3';
import type { Plan } from '@waves/planner';
import { safeText } from './safe-text.js';

const TITLE_WIDTH = 60;
const MAX_PATHS = 6;

function table(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [], compact: false }, wordWrap: true, wrapOnWordBoundary: false });
}

function listCell(items: readonly string[]): string {
  const shown = items.slice(0, MAX_PATHS).map((item) => safeText(item, 80));
  if (items.length > MAX_PATHS) shown.push(`… ${items.length - MAX_PATHS} more`);
  return shown.join('\n');
}

export function renderPlanTable(plan: Plan): string {
  const out: string[] = [];
  if (plan.waves.length === 0) out.push('No wave: nothing is dispatchable.');
  for (const wave of plan.waves) {
    out.push(`Wave ${wave.index} · ${wave.kind} · ${wave.issues.length} issue(s)`);
    const t = table(['#', 'Title', 'Paths / lanes', 'Kind']);
    for (const issue of wave.issues) {
      const scope = issue.paths.length > 0 ? issue.paths : issue.lanes;
      const kind = issue.serial ? `serial: ${safeText(issue.serial, 40)}` : 'parallel';
      const deps = issue.dependsOn.length > 0 ? `\nafter ${issue.dependsOn.map((n) => `#${n}`).join(', ')}` : '';
      t.push([`#${issue.number}`, safeText(issue.title, TITLE_WIDTH), listCell(scope), kind + deps]);
    }
    out.push(t.toString(), '');
  }
  const section = (title: string, head: string[], rows: string[][]) => {
    if (rows.length === 0) return;
    const t = table(head);
    for (const row of rows) t.push(row);
    out.push(`${title} (${rows.length})`, t.toString(), '');
  };
  section(
    'Subdivide',
    ['#', 'Title', 'Reason', 'Children'],
    plan.subdivide.map((i) => [`#${i.number}`, safeText(i.title, TITLE_WIDTH), safeText(i.reason, 120), String(i.childBudget)]),
  );
  section('Triage', ['#', 'Title', 'Reason'], plan.triage.map((i) => [`#${i.number}`, safeText(i.title, TITLE_WIDTH), safeText(i.reason, 160)]));
  section(
    'Held',
    ['#', 'Title', 'Held because'],
    plan.held.map((i) => [`#${i.number}`, safeText(i.title, TITLE_WIDTH), safeText(heldBecause(i), 160)]),
  );
  section('Deferred', ['#', 'Title', 'Reason'], plan.deferred.map((i) => [`#${i.number}`, safeText(i.title, TITLE_WIDTH), safeText(i.reason, 160)]));
  if (plan.warnings.length > 0) {
    out.push(`Warnings (${plan.warnings.length})`);
    for (const w of plan.warnings.slice(0, 20)) out.push(`  #${w.number}: ${safeText(w.message, 200)}`);
    if (plan.warnings.length > 20) out.push(`  … ${plan.warnings.length - 20} more (see --json)`);
    out.push('');
  }
  const optimal = plan.summary.waves > 0 && !plan.summary.optimal ? ' (wave count not proven minimal)' : '';
  out.push(`${plan.summaryLine}${optimal}`);
  return `${out.join('\n')}\n`;
}


/** Why a lease holds an issue: the plan's reason, or (a plan saved before reasons) the lease itself. */
export function heldBecause(held: Plan['held'][number]): string {
  return held.reason ?? `${held.lease.lane} is leased by ${held.lease.holder} until ${held.lease.until}`;
}
