/**
 * Live fences, replayed: what would have happened to a backtest's plan had every edit been
 * checked against the leases as it happened (`waves fence check`). For each wave, every run holds
 * its planned fence as leases; then the runs write their commit's true files in a deterministic
 * order — the wave's issues in the plan's order, each one's files sorted, round robin one file
 * per run per step — and each write outside the writer's fence (with what it was granted so far)
 * is a request decided by the same rule as `waves fence check` and dispatch (`decideLeases`, with
 * the plan's contention depth and serial paths, as an extension). A run the plan makes serial holds
 * the whole repository, as dispatch leases it:
 *
 * - **granted**: the fence widens to that file (a lease in the run's name);
 * - **refused** (`overlap`, `import`): another run holds the path or a file it imports or is
 *   imported by; the write does not happen (the agent works around it, waits or stops);
 * - **needs a person** (`root`, `serial`, `control`): a root file or a serial path, never granted
 *   to a parallel run; a control file, never granted to any run, nor written under a folder of the
 *   fence unless the fence names the file itself.
 *
 * Then the **collisions**: pairs of runs of one wave whose writes — inside their fences or
 * granted — truly conflict, by the backtest's own truth (the same path, a path in a directory the
 * other creates, a direct import at the base). With live fences the goal is none; the plan's
 * violations, beside them, are what the plan alone would have let through. Pure, given `decide`.
 */
import type { Lease } from '../leases/fold-leases.js';
import type { decideLeases, LeaseRules } from '../leases/decide-lease.js';
import type { IssueNumber, RepoGraph, RepoPath } from '../types.js';
import type { RepoTree } from '../scope/repo-tree.js';
import { containsPath } from '../paths/repo-paths.js';
import { isUnnamedControlFile, UNNAMED_CONTROL_FILE } from '../scope/control-files.js';
import type { CommitIssue } from './backlog-from-commits.js';
import { findTrueConflicts, type TruthBase, type TruthEvidence } from './true-conflicts.js';

/** The lease rule the replay applies: `decideLeases` (leases/decide-lease.ts), the one of `waves fence check` and dispatch. */
export type DecideLeases = typeof decideLeases;

export type FenceOutcome = 'granted' | 'refused' | 'person';

export interface FenceEvent {
  wave: number;
  number: IssueNumber;
  path: RepoPath;
  outcome: FenceOutcome;
  /** Why it was refused: the rule and its message (null when granted). */
  reason: 'overlap' | 'import' | 'root' | 'serial' | 'control' | null;
  detail: string | null;
}

export interface FenceCollision {
  wave: number;
  a: IssueNumber;
  b: IssueNumber;
  evidence: TruthEvidence[];
}

export interface LiveFenceInput {
  /** The plan's waves, issue numbers in the plan's order. */
  waves: readonly (readonly IssueNumber[])[];
  /** Each dispatched issue's fence, as repository paths (`''`: the whole repository). */
  fences: ReadonlyMap<IssueNumber, readonly RepoPath[]>;
  /** Issues that run alone (the plan's `serial`): dispatch leases the whole repository for them. */
  serialIssues?: ReadonlySet<IssueNumber>;
  /** The commits replayed: their files are what each run writes. */
  issues: readonly CommitIssue[];
  /** The plan's graph, tree, contention depth and serial globs (`extension` is set by the replay). */
  rules: Omit<LeaseRules, 'extension'>;
  base: TruthBase;
  /** Default: `decideLeases`; a test may count the calls. */
  decide: DecideLeases;
}

export interface LiveFenceReport {
  /** Writes of the dispatched issues (their commits' files). */
  writes: number;
  inFence: number;
  granted: number;
  refused: number;
  person: number;
  /** Dispatched issues with at least one write refused or needing a person. */
  issuesStopped: number;
  collisions: FenceCollision[];
  events: FenceEvent[];
}

const FAR_FUTURE = '9999-12-31T23:59:59.999Z';
const SINCE = '1970-01-01T00:00:00.000Z';

export function holderOf(number: IssueNumber): string {
  return `#${number}`;
}

export function simulateLiveFences(input: LiveFenceInput): LiveFenceReport {
  const byNumber = new Map(input.issues.map((issue) => [issue.number, issue]));
  const events: FenceEvent[] = [];
  const collisions: FenceCollision[] = [];
  let writes = 0;
  let inFence = 0;
  const stopped = new Set<IssueNumber>();

  input.waves.forEach((members, w) => {
    const wave = w + 1;
    const leases: Lease[] = [];
    const own = new Map<IssueNumber, RepoPath[]>();
    for (const number of members) {
      const fence = [...(input.fences.get(number) ?? [])];
      own.set(number, fence);
      const lanes = input.serialIssues?.has(number) ? ['.'] : fence.map((lane) => (lane === '' ? '.' : lane));
      for (const lane of lanes) leases.push({ id: `${number}:${leases.length}`, lane, holder: holderOf(number), since: SINCE, until: FAR_FUTURE });
    }
    const queues = members.map((number) => ({ number, files: (byNumber.get(number)?.files ?? []).map((f) => f.path).sort() }));
    const written = new Map<IssueNumber, Set<RepoPath>>(members.map((n) => [n, new Set()]));
    for (let step = 0; queues.some((q) => step < q.files.length); step++) {
      for (const { number, files } of queues) {
        const path = files[step];
        if (path === undefined) continue;
        writes++;
        const fence = own.get(number)!;
        // A control file only a folder of the fence holds is refused as the live fence refuses it.
        if (fence.some((lane) => containsPath(lane, path)) && isUnnamedControlFile(path, fence)) {
          stopped.add(number);
          events.push({ wave, number, path, outcome: 'person', reason: 'control', detail: `${path}: ${UNNAMED_CONTROL_FILE}` });
          continue;
        }
        if (fence.some((lane) => containsPath(lane, path))) {
          inFence++;
          written.get(number)!.add(path);
          continue;
        }
        const verdict = input.decide(leases, [path], holderOf(number), { ...input.rules, extension: true });
        if (verdict.status === 'granted') {
          fence.push(path);
          leases.push({ id: `${number}:${leases.length}`, lane: path, holder: holderOf(number), since: SINCE, until: FAR_FUTURE });
          written.get(number)!.add(path);
          events.push({ wave, number, path, outcome: 'granted', reason: null, detail: null });
        } else {
          const outcome: FenceOutcome = verdict.reason === 'root' || verdict.reason === 'serial' || verdict.reason === 'control' ? 'person' : 'refused';
          stopped.add(number);
          events.push({ wave, number, path, outcome, reason: verdict.reason, detail: verdict.message });
        }
      }
    }
    // What the runs of this wave wrote, judged by the backtest's truth.
    const wrote: CommitIssue[] = members.map((number, rank) => {
      const files = byNumber.get(number)?.files ?? [];
      const kept = written.get(number)!;
      return { number, rank, sha: '', title: '', files: files.filter((f) => kept.has(f.path)) };
    });
    for (const c of findTrueConflicts(wrote, input.base)) collisions.push({ wave, a: c.a, b: c.b, evidence: c.evidence });
  });

  const count = (outcome: FenceOutcome) => events.filter((e) => e.outcome === outcome).length;
  return {
    writes,
    inFence,
    granted: count('granted'),
    refused: count('refused'),
    person: count('person'),
    issuesStopped: stopped.size,
    collisions,
    events,
  };
}
