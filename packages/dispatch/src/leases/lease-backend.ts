/**
 * Where leases live, behind one small interface: the journal (`.waves/leases.jsonl`, exclusive on
 * one machine) or a ref on the git remote (`refs/waves/leases`, shared by every machine that
 * reaches the remote). Dispatch, the lease keeper, `waves lease`, `waves plan`, `status`, `stop`
 * and the harvest only ever talk to a `LeaseBackend`; which one is in force is the config's
 * `leases.backend`, and a run record names the one its leases were taken in.
 *
 * Every backend decides an acquisition in exactly one place, `decideLanes`, on one consistent
 * snapshot of its table (the journal under its lock, the git table at one commit): all the lanes
 * of a request are granted together, or none.
 */
import { decideLeases, WavesError, type Lease, type LeaseRefusalReason, type LeaseRules, type LeaseVerdict } from '@waves/planner';

export type AcquireResult =
  | {
      status: 'acquired';
      id: string;
      lane: string;
      holder: string;
      until: string;
      /** The fencing token (the git table's epoch when it was taken); the journal has none. */
      epoch?: number;
    }
  | {
      status: 'refused';
      lane: string;
      /** Who is in the way, until when, and the lease's id and lane (empty for an extension onto a root file or a serial path). */
      holder: string;
      until: string;
      id: string;
      heldLane: string;
      /** Why (decide-lease.ts): the same path, an import within the contention depth, root files, a serial path. */
      reason: LeaseRefusalReason;
      /** For `import`: the chain of files. */
      via?: string;
      /** One line for people. */
      message: string;
    };

export interface AcquireRequest {
  holder: string;
  ttlMs: number;
  /**
   * The plan's rule beside the paths (its graph, tree, contention depth and serial globs), decided
   * on the backend's one snapshot, so two orchestrators planning at the same instant cannot take two
   * lanes one import apart. Absent: paths only.
   */
  rules?: LeaseRules;
}

/** `unknown`: the backend never had this lease; `not-active`: it ended (released or expired). */
export type ChangeResult = { status: 'done'; lease: Lease } | { status: 'not-active'; id: string } | { status: 'unknown'; id: string };

/** What `gc` dropped: expired leases (or dated too far in the future), and table entries that are not leases, by path. */
export interface GcResult {
  dropped: Lease[];
  foreign: string[];
  /** The journal's compaction: its size before and after, in bytes, and the live leases it kept (the git table has none). */
  compacted?: { before: number; after: number; kept: number };
}

export interface LeaseListing {
  leases: Lease[];
  /** What the reader skipped or doubts (a torn journal line…), one line each. */
  warnings: string[];
}

export interface LeaseBackend {
  /** `journal` or `git`. */
  readonly kind: 'journal' | 'git';
  /** Where the leases are, for messages (never a credential). */
  readonly where: string;
  /** The leases alive now. */
  list(): Promise<LeaseListing>;
  /** Takes every lane for `holder`, or none: the results are all `acquired`, or one `refused`. */
  acquire(lanes: readonly string[], request: AcquireRequest): Promise<AcquireResult[]>;
  /** Releases leases (releasing one that already ended is harmless). */
  release(ids: readonly string[]): Promise<ChangeResult[]>;
  /** Extends live leases by `ttlMs` from now; an ended lease cannot be renewed (its lane may be taken). */
  renew(ids: readonly string[], ttlMs: number): Promise<ChangeResult[]>;
  /** Drops the expired entries the table still holds, and its files that are not leases; says which. The journal is compacted to its live leases. */
  gc(): Promise<GcResult>;
  /** Calls `onChange` when the table may have changed (a file watch); returns how to stop. Absent: no watching, the renewals tell. */
  watch?(onChange: () => void): () => void;
  /** How the store was replaced since the backend was opened (a journal swapped for a link…), or null. */
  replaced?(): string | null;
}

/**
 * May `holder` take all of `lanes` now, given the live leases of one snapshot? The one place both
 * backends decide, by the planner's one lease rule (decide-lease.ts: paths, and with `rules`
 * import contention, root files, serial paths): all the lanes are granted, or the request is
 * refused. Throws `InputError` for a lane with no canonical spelling.
 */
export function decideLanes(active: readonly Lease[], lanes: readonly string[], holder: string, rules?: LeaseRules): LeaseVerdict {
  return decideLeases(active, lanes, holder, rules);
}

/** A refusal of decide-lease.ts as a backend's `acquire` returns it. */
export function refusalOf(verdict: Exclude<LeaseVerdict, { status: 'granted' }>): Extract<AcquireResult, { status: 'refused' }> {
  const { lease } = verdict;
  return {
    status: 'refused',
    lane: verdict.lane,
    holder: lease?.holder ?? '',
    until: lease?.until ?? '',
    id: lease?.id ?? '',
    heldLane: lease?.lane ?? '',
    reason: verdict.reason,
    ...(verdict.via !== undefined ? { via: verdict.via } : {}),
    message: verdict.message,
  };
}

/** The remote that holds the leases did not answer (unreachable, refused the push, timed out). Exit code 1. */
export class LeaseRemoteError extends WavesError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LeaseRemoteError';
  }
}

/** Every compare-and-swap lost to another writer, up to the bound. Exit code 3, like a refusal: try again. */
export class LeaseBusyError extends WavesError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LeaseBusyError';
  }
}
