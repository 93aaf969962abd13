/** What `waves harvest` shows: per run the witness, what needs a person, and the plan's accuracy. */
import path from 'node:path';
import Table from 'cli-table3';
import type { HarvestOutcome, RunRecord, Witness } from '@waves/dispatch';
import { finishAccuracy, type Accuracy } from '@waves/planner';
import { safeText } from './safe-text.js';

const TABLE_STYLE = { head: [], border: [] };
const percent = (value: number | null) => (value === null ? '—' : `${Math.round(value * 100)}%`);

function verification(witness: Witness): string {
  if (witness.verify.length === 0) return 'not run';
  const bad = witness.verify.find((v) => v.status !== 'passed');
  if (!bad) return `passed (${witness.verify.length})`;
  return `${bad.status.replace('_', ' ')}${bad.exitCode !== null && bad.status === 'failed' ? ` (exit ${bad.exitCode})` : ''}`;
}

function runAccuracy(witness: Witness): Accuracy & { missed: string[]; unused: string[] } {
  return { ...finishAccuracy(witness.accuracy), missed: witness.accuracy.missed, unused: witness.accuracy.unused };
}

/** Advice a team can act on, from accuracy over enough changed files. */
export function accuracyHints(accuracy: Accuracy): string[] {
  const hints: string[] = [];
  if (accuracy.changed === 0) return hints;
  const { recall, recallByDir, recallByPackage, precision } = accuracy;
  if (recall !== null && recall < 0.8) {
    hints.push(`issues named ${percent(recall)} of the files agents changed: name the files in the issue body (backticks or a "Files" list) so the fence holds them`);
  }
  if (recall !== null && recallByDir !== null && recallByDir - recall >= 0.2) {
    hints.push(`leaves rolled up to their directories would have covered ${percent(recallByDir)}: consider granularity "dir" (fewer issues per wave, fewer surprises)`);
  } else if (recall !== null && recallByPackage !== null && recallByPackage - Math.max(recall, recallByDir ?? 0) >= 0.2) {
    hints.push(`leaves rolled up to their packages would have covered ${percent(recallByPackage)}: consider granularity "package" or lane labels`);
  }
  const { recallByImports } = accuracy;
  if (recall !== null && recallByImports !== null && recallByImports - recall >= 0.2) {
    hints.push(`${percent(recallByImports)} of the changed files were predicted or one import away from a predicted file: keep contentionDepth at 1 or more, so that issues this close never share a wave`);
  }
  if (precision !== null && precision < 0.5) hints.push(`agents touched ${percent(precision)} of the predicted leaves: scopes are wider than the work, which costs parallelism`);
  if (hints.length > 0 && accuracy.changed < 20) hints.push(`all of this from ${accuracy.changed} changed file(s) over ${accuracy.runs} run(s): a first sign, not yet a verdict`);
  return hints;
}

function accuracyTable(rows: { label: string; accuracy: Accuracy }[]): string {
  const table = new Table({ head: ['Issue', 'Predicted', 'Touched', 'Changed', 'Covered', 'Precision', 'Recall', 'as dir', 'as package', '+ imports'], style: TABLE_STYLE });
  for (const { label, accuracy: a } of rows) {
    table.push([label, a.predicted, a.touched, a.changed, a.covered, percent(a.precision), percent(a.recall), percent(a.recallByDir), percent(a.recallByPackage), percent(a.recallByImports)]);
  }
  return table.toString();
}

function sourceTable(accuracy: Accuracy): string {
  const table = new Table({ head: ['Source', 'Leaves', 'Touched', 'Files covered', 'Precision', 'Recall'], style: TABLE_STYLE });
  for (const s of accuracy.sources) table.push([s.source, s.predicted, s.touched, s.covered, percent(s.precision), percent(s.recall)]);
  return table.toString();
}

export function renderHarvest(label: string, outcomes: readonly HarvestOutcome[], accuracy: Accuracy, options: { root: string }): string {
  if (outcomes.length === 0) return `Nothing harvested for ${label}.\n`;
  const out: string[] = [];
  const table = new Table({ head: ['Issue', 'Agent', 'Changed', 'In fence', 'Out of fence', 'Verify', 'Commit', 'Witness'], style: TABLE_STYLE });
  const people: string[] = [];
  const notes: string[] = [];
  for (const outcome of outcomes) {
    const { record } = outcome;
    const issue = `#${record.issue.number} ${safeText(record.issue.title, 32)}`;
    if (outcome.kind !== 'witnessed') {
      table.push([issue, record.status, '—', '—', '—', '—', '—', outcome.kind]);
      people.push(`#${record.issue.number}: ${safeText(outcome.why)}`);
      continue;
    }
    const w = outcome.witness;
    const out = w.outOfFence.map((c) => `${safeText(c.path)}${c.root ? ' (root)' : ''}`);
    table.push([
      issue,
      record.status,
      w.changed.length,
      w.inFence.length,
      out.length === 0 ? 0 : `${out.length}: ${out.slice(0, 3).join(', ')}${out.length > 3 ? ', …' : ''}${w.reverted.length > 0 ? ` (${w.reverted.length} reverted)` : ''}`,
      verification(w),
      w.commit ? `${w.commit.sha.slice(0, 10)}${outcome.already ? ' (earlier)' : ''}` : '—',
      w.status === 'clean' ? 'clean' : 'needs a person',
    ]);
    for (const reason of w.reasons) people.push(`#${record.issue.number}: ${safeText(reason)}`);
    for (const note of w.notes) notes.push(`#${record.issue.number}: ${safeText(note)}`);
    if (w.commit && !outcome.already) notes.push(`#${record.issue.number}: committed ${w.commit.sha.slice(0, 10)} on ${safeText(record.worktree?.branch ?? 'the current branch')}: ${safeText(w.commit.message.split('\n')[0]!)}`);
  }
  const clean = outcomes.filter((o) => o.kind === 'witnessed' && o.witness.status === 'clean').length;
  out.push(`Harvest of ${label}: ${clean} of ${outcomes.length} run(s) witnessed clean`, table.toString());
  if (people.length > 0) out.push('', 'Needs a person:', ...people.map((p) => `  ${p}`));
  if (notes.length > 0) out.push('', 'Notes:', ...notes.map((n) => `  ${n}`));
  const witnessed = outcomes.filter((o): o is Extract<HarvestOutcome, { kind: 'witnessed' }> => o.kind === 'witnessed');
  if (witnessed.length > 0) {
    out.push('', 'Prediction accuracy (planned leaves against the files changed):');
    out.push(accuracyTable([...witnessed.map((o) => ({ label: `#${o.record.issue.number}`, accuracy: runAccuracy(o.witness) })), { label: label, accuracy }]));
    if (accuracy.sources.length > 0) out.push(sourceTable(accuracy));
    const shared = witnessed.filter((o) => !o.witness.attributed).length;
    if (shared > 0) out.push(`  ${label} leaves out ${shared} run(s) without a worktree: what they changed outside their fence cannot be told apart`);
    for (const o of witnessed) {
      const extensions = o.witness.extensions ?? [];
      if (extensions.length > 0) out.push(`  #${o.record.issue.number} widened its fence while it ran (granted by the live fence, counted in the fence, missed by the plan): ${extensions.slice(0, 6).map((p) => safeText(p)).join(', ')}${extensions.length > 6 ? ', …' : ''}`);
    }
    const missed = witnessed.filter((o) => o.witness.attributed && o.witness.accuracy.missed.length > 0);
    for (const o of missed) out.push(`  #${o.record.issue.number} changed files no leaf predicted: ${o.witness.accuracy.missed.slice(0, 6).map((p) => safeText(p)).join(', ')}${o.witness.accuracy.missed.length > 6 ? ', …' : ''}`);
  }
  const logs = witnessed.flatMap((o) => o.witness.verify.slice(-1).map((v) => `#${o.record.issue.number} ${safeText(path.relative(options.root, v.log))}`));
  if (logs.length > 0) out.push('', `Verification logs: ${logs.join(' · ')}`);
  return `${out.join('\n')}\n`;
}

export function harvestJson(label: string, outcomes: readonly HarvestOutcome[], accuracy: Accuracy) {
  return {
    harvested: label,
    runs: outcomes.map((o) => ({
      id: o.record.id,
      issue: o.record.issue,
      wave: o.record.wave,
      status: o.record.status,
      worktree: o.record.worktree,
      result: o.kind === 'witnessed' ? o.witness.status : o.kind,
      ...(o.kind !== 'witnessed' ? { why: o.why } : { already: o.already, witness: o.witness, accuracy: runAccuracy(o.witness) }),
    })),
    needsPerson: outcomes.flatMap((o) => {
      const reasons = o.kind !== 'witnessed' ? [o.why] : o.witness.reasons;
      return reasons.length === 0 ? [] : [{ number: o.record.issue.number, run: o.record.id, reasons }];
    }),
    accuracy,
    hints: accuracyHints(accuracy),
  };
}

export function renderHistory(runs: readonly RunRecord[], accuracy: Accuracy, hints: readonly string[]): string {
  if (runs.length === 0) return 'No harvested run yet (waves harvest witnesses a dispatched wave).\n';
  const shared = runs.filter((r) => !r.witness!.attributed).length;
  const out = [`Prediction accuracy over ${runs.length} harvested run(s)${shared > 0 ? ` (${shared} without a worktree left out of "all")` : ''}:`];
  out.push(accuracyTable([...runs.map((r) => ({ label: `#${r.issue.number} ${r.id.replace(/^resolve-\d+-/, '')}`, accuracy: runAccuracy(r.witness!) })), { label: 'all', accuracy }]));
  if (accuracy.sources.length > 0) out.push('By source of the scope:', sourceTable(accuracy));
  if (hints.length > 0) out.push('', ...hints.map((h) => `- ${h}`));
  return `${out.join('\n')}\n`;
}

export function historyJson(runs: readonly RunRecord[], accuracy: Accuracy, hints: readonly string[]) {
  return {
    runs: runs.map((r) => ({ id: r.id, issue: r.issue, wave: r.wave, witnessedAt: r.witness!.at, status: r.witness!.status, accuracy: runAccuracy(r.witness!) })),
    accuracy,
    hints,
  };
}
