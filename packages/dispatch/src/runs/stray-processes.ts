/**
 * The last sweep at the end of a run (Linux, /proc): processes that escaped the descendant tracker
 * (track-descendants.ts) — a daemon made by fork, setsid, an `oom_score_adj` reset, every
 * descriptor closed, fork again and execve with an empty environment, all between two looks — but
 * still sit in the run's tree. A process is taken for the run's when all of these hold:
 *
 * - it belongs to this user, is alive, and started after the agent (its start time in
 *   `/proc/<pid>/stat` against the agent's, in the same boot);
 * - its cwd or root, or a file it holds open, lies in the run's tree: its worktree; in the shared
 *   work tree, the run's fence (its planned folders and files), and the root itself as a cwd (where
 *   the agent was started, so where a daemon it forked stays unless it moves);
 * - it has no controlling terminal (a shell or an editor you opened has one);
 * - it is an orphan: up its parent chain, the first process that started before the agent is
 *   pid 1 or a user service manager (`systemd`) — a tool some program of yours started (an IDE's
 *   language server) has that program there instead;
 * - it carries no other run's `WAVES_RUN` marker and is no run's supervisor (those are theirs).
 *
 * Those are stopped (SIGTERM, the grace, SIGKILL) and named in the run's record (`strays`).
 *
 * NOTE: the limit. A process that leaves the tree (chdir elsewhere) and closes or never opens a
 * file in it is out of reach, as is one that takes a terminal or is adopted by a process that
 * started before the agent. Only a container or a pid namespace is a hard boundary (see the
 * README). Without /proc (macOS) nothing is swept.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { markerEntry } from './agent-env.js';
import { anotherRuns } from './kill-tree.js';
import { ownProcessGroup } from './process-table.js';
import { readSeals, type RunRecord } from './run-record.js';

export interface Stray {
  pid: number;
  start: number;
  /** Its command line (at most 200 characters), for the record. */
  command: string;
  /** What ties it to the run's tree: `cwd …`, `root …` or `open …`. */
  where: string;
}

export interface StrayOptions {
  /** The agent's start time (clock ticks after boot). */
  since: number;
  /** The run's marker entry (`WAVES_RUN=<id>`): processes with another run's marker are theirs. */
  marker: string;
  /** Folders and files (real paths) inside which a cwd, root or open file ties a process to the run. */
  trees: readonly string[];
  /** Folders (real paths) a cwd exactly at ties a process to the run (the shared work tree's root). */
  cwdAt: readonly string[];
  /** Pids never taken (the supervisors of the repository's runs). */
  exclude: ReadonlySet<number>;
}

interface Stat {
  ppid: number;
  tty: number;
  start: number;
  state: string;
  comm: string;
}

function readStat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return { state: fields[0] ?? '?', ppid: Number(fields[1]), tty: Number(fields[4]), start: Number(fields[19]), comm: text.slice(open + 1, close) };
  } catch {
    return null;
  }
}

const link = (file: string): string | null => {
  try {
    return readlinkSync(file);
  } catch {
    return null;
  }
};

const inside = (tree: string, file: string) => file === tree || file.startsWith(tree.endsWith('/') ? tree : `${tree}/`);

/** Service managers that adopt orphans (besides pid 1). */
const REAPERS = new Set(['systemd', 'init']);

/** The processes of this user that escaped the tracker but sit in the run's tree (see the header); none without /proc. */
export function findStrays(options: StrayOptions): Stray[] {
  if (process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const uid = process.getuid?.() ?? -1;
  const own = ownProcessGroup();
  const found: Stray[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (pid <= 1 || pid === process.pid || options.exclude.has(pid)) continue;
    const stat = readStat(pid);
    if (stat === null || stat.state === 'Z' || stat.state === 'X' || stat.start < options.since || stat.tty !== 0) continue;
    try {
      if (statSync(`/proc/${pid}`).uid !== uid) continue;
    } catch {
      continue;
    }
    const where = tieToTree(pid, options);
    if (where === null) continue;
    if (!isOrphan(stat, options.since)) continue;
    let environ: string[] = [];
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
    } catch {
      continue;
    }
    if (environ.some((e) => e.startsWith('WAVES_RUN=') && e !== options.marker)) continue;
    // A terminal multiplexer or session daemon you start in the repository's root while a run of
    // the shared work tree goes (its server detaches from the terminal, its parent gone) fits every
    // test above: unmarked, tied by its cwd alone, it is taken for yours — stopping it would end
    // every session in it (red team G5). NOTE: a daemon of the agent's named so escapes, as one
    // that leaves the tree does; a pid namespace is the hard boundary.
    if (!environ.includes(options.marker) && where.startsWith('cwd ') && PERSONS_SERVERS.has(stat.comm)) continue;
    // Another run's supervisor, or a dispatcher (of any repository): never this run's.
    if (anotherRuns(pid, options.marker.slice('WAVES_RUN='.length))) continue;
    try {
      // waves' own process group (a `waves stop` run from the tree…) is never taken.
      const pgid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[2]);
      if (pgid === own) continue;
    } catch {
      continue;
    }
    let command = stat.comm;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 200) || command;
    } catch {
      // gone meanwhile
    }
    found.push({ pid, start: stat.start, command, where });
  }
  return found;
}

/** Servers a person starts in a terminal that then detach from it (their `comm`, as /proc shows it). */
const PERSONS_SERVERS = new Set(['tmux', 'tmux: server', 'screen', 'SCREEN', 'zellij', 'abduco', 'dtach', 'byobu', 'mosh-server', 'emacs', 'nvim', 'vim', 'code-server', 'ssh-agent', 'gpg-agent']);

function tieToTree(pid: number, options: StrayOptions): string | null {
  const cwd = link(`/proc/${pid}/cwd`);
  if (cwd !== null && (options.cwdAt.includes(cwd) || options.trees.some((t) => inside(t, cwd)))) return `cwd ${cwd}`;
  const root = link(`/proc/${pid}/root`);
  if (root !== null && root !== '/' && options.trees.some((t) => inside(t, root))) return `root ${root}`;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  for (const fd of fds) {
    const target = link(`/proc/${pid}/fd/${fd}`);
    if (target !== null && path.isAbsolute(target) && options.trees.some((t) => inside(t, target))) return `open ${target}`;
  }
  return null;
}

/** Whether the first ancestor that started before the agent is pid 1 or a service manager (see the header). */
function isOrphan(stat: Stat, since: number): boolean {
  let parent = stat.ppid;
  for (let depth = 0; depth < 64; depth++) {
    if (parent <= 1) return true;
    const entry = readStat(parent);
    if (entry === null) return true;
    if (entry.start < since) return REAPERS.has(entry.comm);
    parent = entry.ppid;
  }
  return false;
}

/** Stops the strays: SIGTERM, then — after the grace, for those still there with the same start time — SIGKILL. */
export async function stopStrays(strays: readonly Stray[], graceMs: number): Promise<number[]> {
  const same = (s: Stray) => readStat(s.pid)?.start === s.start && !['Z', 'X'].includes(readStat(s.pid)?.state ?? 'X');
  const signal = (s: Stray, sig: NodeJS.Signals) => {
    try {
      if (same(s)) process.kill(s.pid, sig);
    } catch {
      // gone
    }
  };
  for (const s of strays) signal(s, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (Date.now() < until && strays.some(same)) await new Promise((r) => setTimeout(r, 100));
  for (const s of strays) signal(s, 'SIGKILL');
  const killedBy = Date.now() + 3_000;
  while (Date.now() < killedBy && strays.some(same)) await new Promise((r) => setTimeout(r, 100));
  return strays.filter(same).map((s) => s.pid);
}

/**
 * The run's strays (see above): in its tree — its worktree; in the shared work tree, its fence,
 * and the root as a cwd — started after `since` (clock ticks after boot). The supervisors and
 * dispatchers of the repository's runs are never taken. Empty without /proc.
 */
export async function runStrays(recordFile: string, record: RunRecord, runId: string, since: number): Promise<Stray[]> {
  if (process.platform !== 'linux') return [];
  const real = (file: string) => realpath(file).catch(() => null);
  const trees: string[] = [];
  const cwdAt: string[] = [];
  if (record.worktree !== null) {
    const tree = await real(record.worktree.path);
    if (tree !== null) trees.push(tree);
  } else {
    const root = await real(record.cwd);
    if (root === null) return [];
    cwdAt.push(root);
    for (const entry of record.scope?.fence ?? []) {
      const clean = entry.replace(/\/+$/, '');
      if (clean === '' || clean === '.' || clean.split('/').includes('..')) continue;
      trees.push(path.join(root, clean));
    }
  }
  const exclude = new Set<number>([process.pid]);
  for (const other of (await readSeals(path.dirname(recordFile)).catch(() => new Map<string, RunRecord>())).values()) {
    if (other.supervisorPid) exclude.add(other.supervisorPid);
    if (other.dispatcher) exclude.add(other.dispatcher.pid);
  }
  return findStrays({ since, marker: markerEntry(runId), trees, cwdAt, exclude });
}

/**
 * A wall-clock time as clock ticks after boot (100 a second, Linux's USER_HZ), a second early: what
 * started after it, for a run whose agent's own start time is not known (its supervisor is gone).
 * Null without /proc.
 */
export function ticksAt(ms: number): number | null {
  try {
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
    if (!boot) return null;
    return Math.max(0, Math.floor(((ms - Number(boot[1]) * 1000) / 1000 - 1) * 100));
  } catch {
    return null;
  }
}
