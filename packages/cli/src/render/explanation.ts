/** `waves explain` for people. */
import { confidencePercent, type IssueExplanation } from '@waves/planner';
import { safeText } from './safe-text.js';

/** How many unresolved or dropped mentions are listed one by one. */
const LISTED = 20;

export function renderExplanation(e: IssueExplanation): string {
  const out: string[] = [];
  const where = e.wave ? `wave ${e.wave.index} (${e.wave.kind})` : e.bucket;
  out.push(`#${e.number} ${safeText(e.title, 100)} — ${where}${e.rank ? ` · rank ${e.rank}` : ''}`);
  out.push(`Why: ${safeText(e.reason)}`);
  if (e.serial) out.push(`Runs alone: ${safeText(e.serial)}`);
  out.push('');
  out.push('Scope:');
  if (e.scope.length === 0) out.push('  (nothing resolvable)');
  for (const leaf of e.scope) {
    const label =
      leaf.kind === 'dir' ? `${leaf.path}/` : leaf.kind === 'new-dir' ? `${leaf.path}/ (new directory)` : leaf.kind === 'new-file' ? `${leaf.path} (new file)` : leaf.path;
    out.push(`  ${safeText(label)}`);
    for (const ev of leaf.evidence) {
      const at = ev.line === null || (ev.line === 0 && ev.source === 'title') ? '' : ev.line === 0 ? ', title' : `, line ${ev.line}`;
      out.push(`    ← ${safeText(ev.text, 120)} (${ev.source}${at}, ${ev.via})`);
    }
  }
  if (e.comparedAs.length > 0 && e.comparedAs.join() !== e.scope.map((l) => (l.kind === 'dir' || l.kind === 'new-dir' ? `${l.path}/` : l.path)).join()) {
    out.push(`  compared as: ${e.comparedAs.map((p) => safeText(p)).join(', ')}`);
  }
  // A body of hundreds of paths is said in a screenful: the first ones, then how many more.
  for (const u of e.unresolved.slice(0, LISTED)) out.push(`  unresolved: ${safeText(u.text, 120)}${u.line ? ` (line ${u.line})` : ''} — ${safeText(u.reason)}`);
  if (e.unresolved.length > LISTED) out.push(`  … and ${e.unresolved.length - LISTED} more unresolved (--json lists them all)`);
  for (const r of e.rejected.slice(0, LISTED)) out.push(`  dropped: ${safeText(r.text, 120)} — ${safeText(r.reason)}`);
  if (e.rejected.length > LISTED) out.push(`  … and ${e.rejected.length - LISTED} more dropped (--json lists them all)`);
  for (const x of e.excluded) out.push(`  excluded (said not to touch): ${safeText(x)}`);
  if (e.dependsOn.length > 0) out.push(`  depends on: ${e.dependsOn.map((n) => `#${n}`).join(', ')}`);
  if (e.candidates && e.candidates.length > 0) {
    out.push('');
    out.push(`Likely files (inferred${e.inferred ? ', the fence above' : ''}):`);
    for (const c of e.candidates) {
      out.push(`  ${safeText(c.path)}  ${confidencePercent(c.confidence)}%`);
      for (const ev of c.evidence) {
        const at = ev.where.field === 'title' ? 'title' : ev.where.line !== undefined ? `line ${ev.where.line}` : 'body';
        out.push(`    ← ${ev.kind}: ${safeText(ev.text, 80)} (${at}) → ${safeText(ev.matched, 120)}`);
      }
    }
  }
  out.push('');
  out.push(`Conflicts (${e.conflicts.length}):`);
  if (e.conflicts.length === 0) out.push('  none');
  for (const c of e.conflicts) out.push(`  #${c.with} ${c.kind}: ${safeText(c.detail, 300)}`);
  if (e.earlierWaves.length > 0) {
    out.push('');
    out.push('Not in an earlier wave because:');
    for (const w of e.earlierWaves) out.push(`  wave ${w.index}: ${safeText(w.reason, 400)}`);
  }
  return `${out.join('\n')}\n`;
}
