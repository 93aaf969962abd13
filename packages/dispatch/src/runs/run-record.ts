/**
 * Run records: one JSON file per agent run under `.dispatch-runs/`, beside its log and pid file,
 * written atomically (a temporary file renamed over the old one) so that a reader never sees
 * half a record. Every run ends in a terminal status; one whose processes vanished without it is
 * stale until `waves status --reap` settles it.
 */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export const RUNS_DIR = '.dispatch-runs';
export const TERMINAL = ['succeeded', 'failed', 'timed_out', 'cancelled'] as const;
export type TerminalStatus = (typeof TERMINAL)[number];

export const RunRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  issue: z.object({ number: z.number().int().positive(), title: z.string() }),
  wave: z.number().int().positive(),
  agent: z.string(),
  argv: z.array(z.string()).min(1),
  cwd: z.string(),
  model: z.string().nullable(),
  tier: z.string(),
  leaseIds: z.array(z.string()),
  /** How long each lease lasts; the supervisor renews them while the agent runs. */
  leaseTtlMs: z.number().int().positive(),
  journal: z.string(),
  log: z.string(),
  pidFile: z.string(),
  worktree: z.object({ path: z.string(), branch: z.string(), base: z.string() }).nullable(),
  timeoutMs: z.number().int().positive().nullable(),
  /** The process that watches the agent and settles this record. */
  supervisorPid: z.number().int().nullable(),
  /** The agent's process (the leader of its own process group). */
  pid: z.number().int().nullable(),
  status: z.enum(['starting', 'running', ...TERMINAL]),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  reason: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});

export type RunRecord = z.infer<typeof RunRecordSchema>;

/** `2026-11-29T12:00:00.123Z` → `20261129T120000123Z`: sortable, safe in file names. */
export function stamp(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, '');
}

export function runId(issue: number, date: Date): string {
  return `resolve-${issue}-${stamp(date)}`;
}

export function runFiles(runsDir: string, id: string): { record: string; log: string; pidFile: string } {
  return { record: path.join(runsDir, `${id}.json`), log: path.join(runsDir, `${id}.log`), pidFile: path.join(runsDir, `${id}.pid`) };
}

export async function writeRecord(file: string, record: RunRecord): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temp, `${JSON.stringify(record, null, 2)}\n`);
  await rename(temp, file);
}

export async function readRecord(file: string): Promise<RunRecord> {
  return RunRecordSchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

export interface RecordListing {
  records: { file: string; record: RunRecord }[];
  /** Files that are not run records (ignored). */
  unreadable: string[];
}

export async function readRecords(runsDir: string): Promise<RecordListing> {
  let names: string[];
  try {
    names = await readdir(runsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], unreadable: [] };
    throw error;
  }
  const records: RecordListing['records'] = [];
  const unreadable: string[] = [];
  for (const name of names.filter((n) => /^resolve-\d+-\w+\.json$/.test(n)).sort()) {
    const file = path.join(runsDir, name);
    try {
      records.push({ file, record: await readRecord(file) });
    } catch {
      unreadable.push(file);
    }
  }
  return { records, unreadable };
}

export function isAlive(pid: number | null): boolean {
  if (pid === null || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type RunView = RunRecord['status'] | 'stale';

/** A record's status as seen now: a run whose processes are gone without a terminal status is stale. */
export function viewStatus(record: RunRecord): RunView {
  if ((TERMINAL as readonly string[]).includes(record.status)) return record.status;
  return isAlive(record.supervisorPid) || isAlive(record.pid) ? record.status : 'stale';
}
