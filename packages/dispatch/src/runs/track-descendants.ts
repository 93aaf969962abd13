/**
 * The descendant tracker: what finds a run's processes again once they have left its process
 * group and dropped its marker — `env -i setsid sh -c '(daemon) & exit 0'` leaves a daemon with no
 * `WAVES_RUN`, in a session whose leader is gone, reparented to init. Linux only (/proc).
 *
 * While the agent runs, its supervisor looks at /proc every `TRACK_INTERVAL_MS` — cheaply: the list
 * of pids, then the stat (parent, group, session, start time) of the pids it has not seen before
 * and of those it tracks — and tracks, with its start time:
 *   - the agent, and every child of a tracked process (the parent chain);
 *   - any process started after the agent that is in a session or process group a tracked process
 *     had (or whose id is a tracked pid: setsid and setpgid make the caller's pid an id), which
 *     finds the daemon above by the session its vanished leader created;
 *   - any process started after the agent that holds the agent's output (its log, or its pipes)
 *     open for writing, which a daemon inherits unless it closes it;
 *   - any process started after the agent that carries the run's tag — an `oom_score_adj` value
 *     (11–99, unused by any other process when it was chosen) the supervisor gives itself just
 *     before it starts the agent, so that the agent and everything it forks inherit it, and takes
 *     back right after — and the run's `WAVES_RUN` marker too. The tag alone is never enough:
 *     any process of the user may write any value into another's `oom_score_adj` (an agent
 *     tagging the person's processes, or another run's supervisor, must not get them stopped).
 * At the end of the run (and for `waves stop` or a takeover, from the record's `tracked`), what is
 * tracked and still there is stopped with the group and the marked processes. A pid counts only
 * with its recorded start time, so a later process given the same pid is never signalled; an id
 * is forgotten as soon as another process is seen holding that pid.
 *
 * NOTE: the limit. A process that forks, calls setsid, forks again and exits — all between two
 * looks — with a cleared environment, its output closed and its `oom_score_adj` reset leaves a
 * grandchild that nothing here ties to the run. The supervisor's last sweep (stray-processes.ts)
 * still finds it while it sits in the run's tree; one that left the tree is out of reach. Only a
 * container or a sandbox (a cgroup, a pid namespace: `unshare`, see the README) is a hard boundary.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { bootId, environHas, hasProcessTable, listPids, readOomScoreAdj, readProcess, writeOwnOomScoreAdj, type ProcessEntry } from './process-table.js';

/** How often the supervisor looks at /proc while its agent runs (less often on a machine where a look is slow). */
export const TRACK_INTERVAL_MS = 25;
/** A look takes at most this share of one core: each waits at least this many times as long as the last took. */
const TRACK_COST_FACTOR = 20;

/** What the tracker knows, as the run record keeps it (`tracked`). */
export interface TrackedProcesses {
  /** The boot the start times count from (`/proc/sys/kernel/random/boot_id`): in another, they mean nothing. */
  boot: string | null;
  /** The agent's start time (clock ticks after boot): nothing started before it is the run's but by its pid. */
  since: number;
  /** The run's live processes, each with its start time. */
  pids: { pid: number; start: number }[];
  /** The session and process group ids the run's processes have had. */
  sessions: number[];
  /** The agent's output as /proc shows an open file (`/…/resolve-N-….log`, `pipe:[…]`). */
  outputs: string[];
  /** The run's `oom_score_adj` tag, or null (absent in records of an older waves). */
  tag?: number | null;
}

/** The tags a run may take: small, and below what browsers give their own processes (200 and up). */
const TAGS = { min: 11, max: 99 };

/** How many looks an id outlives the last tracked process that had it (one it created may not be seen yet). */
const ID_LOOKS = 2;

export class DescendantTracker {
  /** Tracked processes alive at the last look: pid → start time. */
  private readonly live = new Map<number, number>();
  /** Session and group ids → the look they were last in use at. */
  private readonly ids = new Map<number, number>();
  /** Every pid the incremental look has read: pid → start time (only new pids are read again). */
  private readonly known = new Map<number, number>();
  private looks = 0;

  private constructor(
    readonly boot: string | null,
    readonly since: number,
    readonly outputs: readonly string[],
    readonly tag: number | null,
    pids: readonly { pid: number; start: number }[],
    sessions: readonly number[],
    /** The run's marker entry (`WAVES_RUN=<id>`) a tagged process must carry too; null: the tag is not used. */
    private readonly marker: string | null = null,
  ) {
    for (const { pid, start } of pids) this.live.set(pid, start);
    for (const id of sessions) this.ids.set(id, 0);
  }

  /**
   * Gives this process (the supervisor, about to start the agent) a tag no other live process has,
   * for the agent to inherit; `untag()` gives it back its own value once the agent is started.
   * Null where /proc or the value cannot be written.
   */
  static tagSelf(): { tag: number; untag: () => void } | null {
    if (!hasProcessTable()) return null;
    const own = readOomScoreAdj(process.pid);
    if (own === null) return null;
    for (let attempt = 0; attempt < 5; attempt++) {
      const used = tagsInUse();
      const free: number[] = [];
      for (let value = TAGS.min; value <= TAGS.max; value++) if (!used.has(value)) free.push(value);
      if (free.length === 0) return null;
      const tag = free[Math.floor(Math.random() * free.length)]!;
      if (!writeOwnOomScoreAdj(tag)) return null;
      // Another supervisor may have picked the same value at the same moment: each that sees another holder gives way.
      if (!tagsInUse().has(tag)) return { tag, untag: () => void writeOwnOomScoreAdj(own) };
      writeOwnOomScoreAdj(own);
    }
    return null;
  }

  /** A tracker of a freshly started agent (the leader of its own session and group), or null without /proc. */
  static forAgent(pid: number, log: string | null, tag: number | null = null, marker: string | null = null): DescendantTracker | null {
    if (!hasProcessTable()) return null;
    const agent = readProcess(pid);
    if (agent === null) return null;
    const outputs = new Set<string>();
    for (const fd of [1, 2]) {
      const target = readLink(`/proc/${pid}/fd/${fd}`);
      if (target !== null && target.startsWith('pipe:')) outputs.add(target);
    }
    if (log !== null) {
      try {
        outputs.add(realpathSync(log));
      } catch {
        // no log to find writers of
      }
    }
    const tracker = new DescendantTracker(bootId(), agent.start, [...outputs], tag, [{ pid, start: agent.start }], [pid, agent.sid, agent.pgid], marker);
    tracker.poll();
    return tracker;
  }

  /** A tracker resumed from a record (`waves stop`, a takeover), or null without /proc or after a reboot. */
  static fromRecord(tracked: TrackedProcesses, marker: string | null = null): DescendantTracker | null {
    if (!hasProcessTable() || tracked.boot === null || tracked.boot !== bootId()) return null;
    return new DescendantTracker(tracked.boot, tracked.since, tracked.outputs, tracked.tag ?? null, tracked.pids, tracked.sessions, marker);
  }

  /** One cheap look (new pids and tracked ones only); true when what the record keeps changed. */
  poll(): boolean {
    const pids = listPids();
    if (pids === null) return false;
    const alive = new Set(pids);
    for (const pid of this.known.keys()) if (!alive.has(pid)) this.known.delete(pid);
    const fresh: ProcessEntry[] = [];
    for (const pid of pids) {
      if (this.known.has(pid) && !this.live.has(pid)) continue;
      const entry = readProcess(pid);
      if (entry === null) continue;
      this.known.set(pid, entry.start);
      fresh.push(entry);
    }
    return this.update(fresh, alive);
  }

  /**
   * Looks every `TRACK_INTERVAL_MS` (or, where a look is slow — thousands of processes —
   * `TRACK_COST_FACTOR` times what the last one took) until stopped; `onChange` after a look that
   * changed what the record keeps.
   */
  watch(onChange: () => void): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const look = () => {
      const began = performance.now();
      if (this.poll()) onChange();
      if (!stopped) timer = setTimeout(look, Math.max(TRACK_INTERVAL_MS, (performance.now() - began) * TRACK_COST_FACTOR));
    };
    timer = setTimeout(look, TRACK_INTERVAL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  /** A look at a whole process table (zombies left out): the pids of the run in it. */
  observe(table: readonly ProcessEntry[]): number[] {
    const alive = new Set(table.map((p) => p.pid));
    this.update(table, alive);
    return [...this.live.keys()].filter((pid) => alive.has(pid));
  }

  snapshot(): TrackedProcesses {
    return {
      boot: this.boot,
      since: this.since,
      pids: [...this.live].map(([pid, start]) => ({ pid, start })),
      sessions: [...this.ids.keys()].sort((a, b) => a - b),
      outputs: [...this.outputs],
      tag: this.tag,
    };
  }

  /**
   * Folds one look into what is tracked. `seen` holds an entry for every tracked pid still there
   * (and for the candidates); `alive` every live pid.
   */
  private update(seen: readonly ProcessEntry[], alive: ReadonlySet<number>): boolean {
    this.looks += 1;
    let changed = false;
    const byPid = new Map(seen.map((p) => [p.pid, p]));
    // Gone, or the pid now names another process.
    for (const [pid, start] of this.live) {
      const entry = byPid.get(pid);
      if (entry === undefined || entry.start !== start) {
        this.live.delete(pid);
        changed = true;
      }
    }
    // An id whose pid another live process now holds is that process's, no longer the run's.
    for (const id of this.ids.keys()) {
      if (!this.live.has(id) && alive.has(id)) {
        this.ids.delete(id);
        changed = true;
      }
    }
    // New members, to a fixed point: a child found makes its own children findable in the same look.
    const candidates = seen.filter((p) => !this.live.has(p.pid) && p.pid > 1);
    for (let grew = true; grew; ) {
      grew = false;
      for (const entry of candidates) {
        if (this.live.has(entry.pid) || !this.belongs(entry)) continue;
        this.live.set(entry.pid, entry.start);
        grew = changed = true;
      }
    }
    for (const pid of this.live.keys()) {
      const entry = byPid.get(pid)!;
      for (const id of [entry.pid, entry.sid, entry.pgid]) {
        if (id <= 1) continue;
        if (!this.ids.has(id)) changed = true;
        this.ids.set(id, this.looks);
      }
    }
    for (const [id, last] of this.ids) {
      if (last !== 0 && last < this.looks - ID_LOOKS) {
        this.ids.delete(id);
        changed = true;
      }
    }
    return changed;
  }

  private belongs(entry: ProcessEntry): boolean {
    const parent = this.live.get(entry.ppid);
    if (parent !== undefined && entry.start >= parent) return true;
    if (entry.start < this.since) return false;
    if (this.ids.has(entry.sid) || this.ids.has(entry.pgid)) return true;
    if (this.tag !== null && this.marker !== null && readOomScoreAdj(entry.pid) === this.tag && environHas(entry.pid, this.marker)) return true;
    return this.writesOutput(entry.pid);
  }

  /** Whether a process holds one of the agent's outputs open for writing (a reader, `tail -f`, does not count). */
  private writesOutput(pid: number): boolean {
    if (this.outputs.length === 0) return false;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false; // gone, or another user's
    }
    for (const fd of fds) {
      const target = readLink(`/proc/${pid}/fd/${fd}`);
      if (target === null || !this.outputs.includes(target)) continue;
      try {
        const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'));
        // O_WRONLY (1) or O_RDWR (2).
        if (flags && (parseInt(flags[1]!, 8) & 3) !== 0) return true;
      } catch {
        // closed meanwhile
      }
    }
    return false;
  }
}

/** The `oom_score_adj` values live processes other than this one hold. */
function tagsInUse(): Set<number> {
  const used = new Set<number>();
  for (const pid of listPids() ?? []) {
    if (pid === process.pid) continue;
    const value = readOomScoreAdj(pid);
    if (value !== null) used.add(value);
  }
  return used;
}

function readLink(file: string): string | null {
  try {
    return readlinkSync(file);
  } catch {
    return null;
  }
}
