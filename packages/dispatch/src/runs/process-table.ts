/**
 * What the kernel says about processes, read from Linux's /proc: each process's group and state,
 * its environment, its command line. Elsewhere (no /proc) the table is null and callers fall back
 * to `kill(pid, 0)`, which cannot tell a zombie from a live process nor read an environment.
 *
 * NOTE: a zombie counts as gone. It runs no code and holds nothing but its pid, and in some
 * containers nothing ever reaps an orphan (their init leaves zombies), so waiting for `kill(-pgid,
 * 0)` to fail there would wait forever.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  /** Its parent (1, or a subreaper, once its parent is gone). */
  ppid: number;
  /** Its process group. */
  pgid: number;
  /** Its session. */
  sid: number;
  /** When it started, in clock ticks after boot: with the pid, what tells it from a later process given the same pid. */
  start: number;
  /** One letter: R, S, D, T (stopped), Z (zombie), X (dead)… */
  state: string;
}

/** `/proc/<pid>/stat` → entry; the command name in parentheses may itself hold spaces and `)`. */
export function readProcess(pid: number): ProcessEntry | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]), start: Number(fields[19]) };
  } catch {
    return null;
  }
}
const readStat = readProcess;

let procKnown: boolean | undefined;
const hasProc = () => (procKnown ??= readStat(process.pid) !== null);

/** Every live process (zombies left out), or null without /proc. */
export function listProcesses(): ProcessEntry[] | null {
  if (!hasProc()) return null;
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readStat(Number(name));
    if (entry && entry.state !== 'Z' && entry.state !== 'X') entries.push(entry);
  }
  return entries;
}

/** The pids /proc lists (processes, not threads), or null without /proc. */
export function listPids(): number[] | null {
  if (!hasProc()) return null;
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) if (/^\d+$/.test(name)) pids.push(Number(name));
  return pids;
}

/** Whether /proc can be read here (Linux). */
export const hasProcessTable = (): boolean => hasProc();

/** This boot's id (`/proc/sys/kernel/random/boot_id`): start times count from the boot, so they mean nothing in another. */
export function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** A process's state letter (`T`: stopped), or null when it is gone or there is no /proc. */
export function processState(pid: number): string | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  return readStat(pid)?.state ?? null;
}

/** Whether a process is stopped (SIGSTOP, or stopped by a tracer): it runs nothing until continued. */
export function isStopped(pid: number): boolean {
  const state = processState(pid);
  return state === 'T' || state === 't';
}

/** When a process started (clock ticks after boot), or null when it is gone or there is no /proc. */
export function processStart(pid: number): number | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  return readStat(pid)?.start ?? null;
}

/** A process's `oom_score_adj` (inherited by its children, kept across exec, setsid and `env -i`), or null. */
export function readOomScoreAdj(pid: number): number | null {
  try {
    const value = Number(readFileSync(`/proc/${pid}/oom_score_adj`, 'utf8').trim());
    return Number.isInteger(value) ? value : null;
  } catch {
    return null;
  }
}

/** Sets this process's `oom_score_adj`; false when it may not (lowering it needs a privilege it may lack). */
export function writeOwnOomScoreAdj(value: number): boolean {
  try {
    writeFileSync('/proc/self/oom_score_adj', `${value}\n`);
    return readOomScoreAdj(process.pid) === value;
  } catch {
    return false;
  }
}

/** Whether a process runs (a zombie does not). */
export function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!hasProc()) return true;
  const entry = readStat(pid);
  return entry !== null && entry.state !== 'Z' && entry.state !== 'X';
}

/** Whether a process's environment (as it was started) holds `entry` (`NAME=value`); false when unreadable. */
export function environHas(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    return false;
  }
}

/** The argv a process was started with, or null when it cannot be read. */
export function commandLine(pid: number): string[] | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  if (hasProc()) {
    try {
      const parts = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (parts.at(-1) === '') parts.pop();
      return parts.length > 0 ? parts : null;
    } catch {
      return null;
    }
  }
  try {
    // No /proc: ps prints the arguments joined by spaces, which is enough to find a word.
    const text = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return text === '' ? null : text.split(' ');
  } catch {
    return null;
  }
}

let ownGroup: number | null | undefined;

/** The process group of this process (waves itself), never to be signalled. */
export function ownProcessGroup(): number | null {
  if (ownGroup !== undefined) return ownGroup;
  ownGroup = readStat(process.pid)?.pgid ?? null;
  if (ownGroup === null) {
    try {
      ownGroup = Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()) || null;
    } catch {
      ownGroup = null;
    }
  }
  return ownGroup;
}
