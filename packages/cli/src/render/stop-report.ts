/** What `waves stop` did, for people (stdout: one line per run; stderr: refusals and survivors) and as JSON. */
import type { StopOutcome } from '@waves/dispatch';
import { safeText } from './safe-text.js';

export function renderStops(outcomes: readonly StopOutcome[]): { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  for (const { record, by, refused, survivors } of outcomes) {
    const run = `${record.id} (#${record.issue.number})`;
    if (refused) stderr += `waves: ${run}: refused to signal process group ${record.pid}: ${refused}; stopped its marked processes only\n`;
    if (survivors.length > 0) stderr += `waves: ${run}: pid(s) ${survivors.join(', ')} still there after SIGKILL\n`;
    if (by === 'settled') stdout += `waves: ${run} had already ended: ${record.status}\n`;
    else stdout += `waves: stopped ${run}${by === 'supervisor' ? ' through its supervisor' : ''}: ${record.status}${record.reason ? ` (${safeText(record.reason)})` : ''}; its leases are released\n`;
  }
  return { stdout, stderr };
}

export function stopsJson(outcomes: readonly StopOutcome[]): unknown[] {
  return outcomes.map(({ record, by, refused, survivors }) => ({
    id: record.id,
    issue: record.issue.number,
    status: record.status,
    reason: record.reason,
    by,
    refused,
    survivors,
  }));
}
