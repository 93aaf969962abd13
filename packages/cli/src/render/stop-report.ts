/** What `waves stop` did, for people (stdout: one line per run; stderr: refusals and survivors) and as JSON. */
import type { StopOutcome } from '@waves/dispatch';
import { safeText } from './safe-text.js';

export function renderStops(outcomes: readonly StopOutcome[]): { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  for (const { record, by, refused, survivors, released } of outcomes) {
    const run = `${record.id} (#${record.issue.number})`;
    if (refused) stderr += `waves: ${run}: refused to signal process group ${record.pid}: ${refused}; stopped its marked processes only\n`;
    if (survivors.length > 0) stderr += `waves: ${run}: pid(s) ${survivors.join(', ')} still there after SIGKILL\n`;
    if (by === 'settled') stdout += `waves: ${run} had already ended: ${record.status}\n`;
    else stdout += `waves: stopped ${run}${by === 'supervisor' ? ' through its supervisor' : ''}: ${record.status}${record.reason ? ` (${safeText(record.reason)})` : ''}; ${leasesLine(released)}\n`;
  }
  return { stdout, stderr };
}

/** What became of a stopped run's leases: its supervisor released them, or waves released so many (none: it held none in its name). */
function leasesLine(released: number | null): string {
  if (released === null) return 'its leases are released';
  if (released === 0) return 'it held no lease in its name (nothing released)';
  return `its ${released} lease(s) are released`;
}

export function stopsJson(outcomes: readonly StopOutcome[]): unknown[] {
  return outcomes.map(({ record, by, refused, survivors, released }) => ({
    id: record.id,
    issue: record.issue.number,
    status: record.status,
    reason: record.reason,
    by,
    refused,
    survivors,
    released,
  }));
}
