/**
 * The leases of a run, found by name: a dispatch takes each run's leases in the run's own name,
 * `<holder>/<run id>`, so the journal says which run holds what whatever its record lists — the
 * record may not list them yet (the dispatch was killed right after it took them), or may be gone.
 */
import { foldLeases, type Lease } from '@waves/planner';
import { readJournal, releaseLeases } from '../leases/lease-journal.js';

const RUN_HOLDER = /\/(resolve-\d+-\d{8}T\d{9}Z)$/;

/** The run a lease holder names (`alice@host/resolve-101-20261129T120000123Z`), or null for another holder. */
export function runOfHolder(holder: string): string | null {
  return RUN_HOLDER.exec(holder)?.[1] ?? null;
}

/** The active leases held in some run's name, by run id. */
export function leasesByRun(leases: readonly Lease[]): Map<string, Lease[]> {
  const byRun = new Map<string, Lease[]>();
  for (const lease of leases) {
    const run = runOfHolder(lease.holder);
    if (run !== null) byRun.set(run, [...(byRun.get(run) ?? []), lease]);
  }
  return byRun;
}

/** Releases every active lease held in this run's name; returns them. */
export async function releaseOwnLeases(journal: string, runId: string, now: () => Date): Promise<Lease[]> {
  const { events } = await readJournal(journal);
  const own = foldLeases(events, now().getTime()).filter((l) => runOfHolder(l.holder) === runId);
  await releaseLeases(journal, own.map((l) => l.id), now);
  return own;
}
