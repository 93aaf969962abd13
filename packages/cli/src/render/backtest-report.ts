/**
 * A backtest report for people: the range and the backlog it made, the three headline figures
 * (violations, waves against the perfect-knowledge reference, share dispatched), what each rule
 * did, and the violations with their evidence — as terminal tables or as GitHub markdown for a
 * pull request. Returns strings; only the CLI prints. Commit subjects are untrusted text.
 */
import Table from 'cli-table3';
import { SKIP_REASONS, type BacktestReport, type SkipReason } from '@waves/planner';
import { markdownCell } from './plan-markdown.js';
import { safeText } from './safe-text.js';

const MAX_VIOLATIONS = 30;

function short(sha: string): string {
  return sha.slice(0, 12);
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function ratio(report: BacktestReport): string {
  const { waves, referenceWaves, wavesRatio } = report.summary;
  return `${waves} (reference ${referenceWaves}${wavesRatio === null ? '' : `: ${wavesRatio.toFixed(2)}×`})`;
}

function signed(n: number | null): string {
  if (n === null) return '—';
  return n > 0 ? `+${n}` : String(n);
}

function dash(n: number | null): string {
  return n === null ? '—' : String(n);
}

function rangeLine(report: BacktestReport): string {
  const { repo, options } = report;
  const range = repo.since ? `${short(repo.since)}..${short(repo.until)}` : `the last ${repo.commits} up to ${short(repo.until)}`;
  return `Backtest of ${repo.root}: ${repo.commits} first-parent commit(s), ${range}; planned against the base ${short(repo.base)} (${repo.files} files, ${repo.imports} imports); grade ${options.grade}, wave size ${options.waveSize}`;
}

function backlogLine(report: BacktestReport): string {
  const counts = new Map<SkipReason, number>();
  for (const s of report.skipped) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  const skipped = [...counts].map(([reason, n]) => `${n} ${reason === 'too-many-files' ? `with more than ${report.options.maxFiles} files` : SKIP_REASONS[reason]}`);
  return `Backlog: ${report.summary.issues} issue(s), one per commit${skipped.length > 0 ? ` (skipped: ${skipped.join('; ')})` : ''}`;
}

function truthLine(report: BacktestReport): string {
  const { truth } = report.options;
  const source = truth.source === 'waves' ? "waves' import graph at the base" : `${truth.file} (${truth.source})`;
  return `Truth: ${report.summary.truePairs} truly conflicting pair(s): same path, a path in a directory the other creates, or a direct import (${source}, ${truth.edges} edges)`;
}

function pct(share: number | null): string {
  return share === null ? '—' : percent(share);
}

/** Scope inference against the BM25 baseline, file-level, and the live-fence replay: rows of [figure, value]. */
function inferenceRows(report: BacktestReport): string[][] {
  const l = report.localisation;
  const acc = (f: { at1: { any: number; all: number }; at5: { any: number; all: number } }) =>
    `Acc@1 ${percent(f.at1.any)} (all ${percent(f.at1.all)}) · Acc@5 ${percent(f.at5.any)} (all ${percent(f.at5.all)})`;
  const mode = report.options.inference ? `${report.options.inference.mode}${report.options.inference.threshold === null ? '' : `, threshold ${report.options.inference.threshold}`}` : 'none';
  const met = l.all.at5.any >= l.goalAt5 ? 'met' : 'not met';
  return [
    ['Inference', `${mode}; ${l.all.withCandidates} of ${l.all.locatable} locatable issue(s) with candidates`],
    ['Candidates', `${acc(l.all)} — goal Acc@5 ≥ ${percent(l.goalAt5)}: ${met}`],
    ['BM25 baseline', acc(l.baseline)],
    ['Inferred fences', `${l.inferredDispatched} dispatched, ${l.inferredViolations} violation(s); fence recall ${pct(l.fence.recall)}, complete ${pct(l.fence.complete)}`],
    ...(l.calibration.length > 0 ? [['Best candidate right', calibrationText(l.calibration)]] : []),
  ];
}

/** `0.7–0.8: 41% of 378` per tenth, lowest first. */
function calibrationText(bins: BacktestReport['localisation']['calibration']): string {
  return bins.map((b) => `${b.from.toFixed(1)}–${b.to.toFixed(1)}: ${percent(b.hits / b.issues)} of ${b.issues}`).join(';\n');
}

function liveFenceRows(report: BacktestReport): string[][] {
  const f = report.liveFences;
  if (!f) return [];
  return [
    ['Writes', `${f.writes}: ${f.inFence} inside the fence, ${f.granted} granted, ${f.refused} refused, ${f.person} needing a person`],
    ['Issues stopped', `${f.issuesStopped} of ${report.summary.dispatched} dispatched (a write refused or needing a person)`],
    ['Collisions', `${f.collisions} with live fences (the plan alone: ${f.planViolations} violation(s))`],
  ];
}

const INFERENCE_NOTE =
  'Acc@k: a true file (all: every true file) among the top k candidates; true files: the code files a commit edits or deletes, tests aside. BM25 baseline: the title and body matched against file paths. Best candidate right: per tenth of its confidence, how often the best candidate of an issue naming no file was a true file.';
const FENCE_NOTE =
  'Live fences: each wave replayed with every run writing its commit\'s files in turn; a write outside its fence is decided by the lease rule (granted: the fence widens). Collisions: runs whose writes still truly conflict.';

const RULES_NOTE =
  'Every issue is planned (no --top, no --max-waves cut). True pairs: true conflicts the rule kept apart. Waves cost: the waves it added (the plan re-partitioned without it; negative: it saved waves). Alone prevented: true conflicts no other rule would have kept apart.';

function ruleRows(report: BacktestReport): string[][] {
  return report.rules.map((r) => [r.label, dash(r.issues), dash(r.pairs), String(r.truePairs), signed(r.wavesCost), String(r.alonePrevented)]);
}

const RULE_HEAD = ['Rule', 'Issues', 'Pairs', 'True pairs', 'Waves cost', 'Alone prevented'];

function table(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [], compact: false }, wordWrap: true, wrapOnWordBoundary: false });
}

export function renderBacktestTable(report: BacktestReport): string {
  const out: string[] = [rangeLine(report), backlogLine(report), truthLine(report), ''];
  const { summary } = report;
  const headline = table(['Figure', 'Value']);
  headline.push(['Violations', String(summary.violations)]);
  headline.push(['Waves', ratio(report)]);
  headline.push(['Dispatched', `${summary.dispatched} of ${summary.issues} (${percent(summary.dispatchedShare)})`]);
  out.push(headline.toString(), '');
  const rules = table(RULE_HEAD);
  for (const row of ruleRows(report)) rules.push(row);
  out.push('Rules', rules.toString(), RULES_NOTE, '');
  const inference = table(['Figure', 'Value']);
  for (const row of inferenceRows(report)) inference.push(row);
  out.push('Scope inference (file level)', inference.toString(), INFERENCE_NOTE, '');
  if (report.liveFences) {
    const live = table(['Figure', 'Value']);
    for (const row of liveFenceRows(report)) live.push(row);
    out.push('Live fences', live.toString(), FENCE_NOTE, '');
  }
  if (report.violations.length > 0) {
    out.push(`Violations (${report.violations.length}): pairs in one wave that truly conflict`);
    const titles = new Map(report.issues.map((i) => [i.number, i.title]));
    const t = table(['Wave', 'Pair', 'Evidence']);
    for (const v of report.violations.slice(0, MAX_VIOLATIONS)) {
      t.push([
        String(v.wave),
        `#${v.a} ${safeText(titles.get(v.a) ?? '', 40)}\n#${v.b} ${safeText(titles.get(v.b) ?? '', 40)}`,
        v.evidence.map((e) => safeText(e.detail, 120)).join('\n'),
      ]);
    }
    out.push(t.toString());
    if (report.violations.length > MAX_VIOLATIONS) out.push(`… ${report.violations.length - MAX_VIOLATIONS} more (see --json)`);
    out.push('');
  }
  out.push(`${summary.violations} violation(s) · ${ratio(report)} wave(s) · ${summary.dispatched} of ${summary.issues} dispatched (${percent(summary.dispatchedShare)})`);
  return `${out.join('\n')}\n`;
}

function mdTable(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function renderBacktestMarkdown(report: BacktestReport): string {
  const { summary } = report;
  const out: string[] = [
    '### Backtest',
    '',
    markdownCell(rangeLine(report)),
    '',
    markdownCell(backlogLine(report)),
    '',
    markdownCell(truthLine(report)),
    '',
    mdTable(
      ['Violations', 'Waves (reference)', 'Dispatched'],
      [[String(summary.violations), ratio(report), `${summary.dispatched} of ${summary.issues} (${percent(summary.dispatchedShare)})`]],
    ),
    '',
    '#### Rules',
    '',
    mdTable(RULE_HEAD, ruleRows(report).map((row) => [markdownCell(row[0]!), ...row.slice(1)])),
    '',
    markdownCell(RULES_NOTE),
    '',
    '#### Scope inference (file level)',
    '',
    mdTable(['Figure', 'Value'], inferenceRows(report).map((row) => row.map(markdownCell))),
    '',
    markdownCell(INFERENCE_NOTE),
    '',
  ];
  if (report.liveFences) {
    out.push('#### Live fences', '', mdTable(['Figure', 'Value'], liveFenceRows(report).map((row) => row.map(markdownCell))), '', markdownCell(FENCE_NOTE), '');
  }
  if (report.violations.length > 0) {
    const titles = new Map(report.issues.map((i) => [i.number, i.title]));
    out.push(`<details><summary>Violations (${report.violations.length})</summary>`, '');
    out.push(
      mdTable(
        ['Wave', 'Pair', 'Evidence'],
        report.violations.slice(0, MAX_VIOLATIONS).map((v) => [
          String(v.wave),
          `#${v.a} ${markdownCell(titles.get(v.a) ?? '')}<br>#${v.b} ${markdownCell(titles.get(v.b) ?? '')}`,
          v.evidence.map((e) => markdownCell(e.detail)).join('<br>'),
        ]),
      ),
    );
    if (report.violations.length > MAX_VIOLATIONS) out.push('', `… ${report.violations.length - MAX_VIOLATIONS} more (see --json)`);
    out.push('', '</details>', '');
  }
  return `${out.join('\n')}\n`;
}
