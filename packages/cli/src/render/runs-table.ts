/** Run records as a table for people. */
import path from 'node:path';
import Table from 'cli-table3';
import type { RunRecord, RunView } from '@waves/dispatch';
import { safeText } from './safe-text.js';

export function duration(record: RunRecord, now = Date.now()): string {
  const end = record.endedAt ? Date.parse(record.endedAt) : now;
  const seconds = Math.max(0, Math.round((end - Date.parse(record.startedAt)) / 1000));
  return seconds < 60 ? `${seconds}s` : seconds < 3600 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s` : `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** Leases held in the name of a run that has no record. */
export interface OrphanRow {
  run: string;
  lanes: string[];
  /** The latest end of its leases. */
  until: string;
}

export function renderRuns(rows: readonly { record: RunRecord; view: RunView }[], options: { root: string; orphans?: readonly OrphanRow[] }): string {
  const orphans = options.orphans ?? [];
  if (rows.length === 0 && orphans.length === 0) return 'No run.\n';
  // Once a run is harvested, what the harvest saw.
  const harvested = rows.some((r) => r.record.witness);
  const table = new Table({ head: ['Run', 'Issue', 'Status', 'Duration', 'Log', ...(harvested ? ['Harvest'] : [])], style: { head: [], border: [] } });
  for (const { record, view } of rows) {
    const status = view === record.status ? view : `${view} (was ${record.status})`;
    table.push([
      safeText(record.id),
      `#${record.issue.number} ${safeText(record.issue.title, 40)}`,
      `${status}${record.exitCode !== null && view !== 'succeeded' ? ` (exit ${record.exitCode})` : ''}`,
      view === 'stale' ? '—' : duration(record),
      safeText(path.relative(options.root, record.log)),
      ...(harvested ? [witnessCell(record)] : []),
    ]);
  }
  for (const orphan of orphans) {
    const issue = /^resolve-(\d+)-/.exec(orphan.run)?.[1];
    table.push([safeText(orphan.run), issue ? `#${issue}` : '—', `orphan: leases held, no record (${orphan.lanes.join(', ')})`, '—', '—', ...(harvested ? ['—'] : [])]);
  }
  return `${table.toString()}\n`;
}

function witnessCell(record: RunRecord): string {
  const witness = record.witness;
  if (!witness) return '—';
  if (witness.commit) return `committed ${witness.commit.sha.slice(0, 10)}`;
  return witness.status === 'clean' ? 'clean' : 'needs a person';
}
