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
import { decideAcquire, WavesError, type Lease } from '@waves/planner';

export type AcquireResult =
  | { status: 'acquired'; id: string; lane: string; holder: string; until: string; epoch?: number }
  | { status: 'refused'; lane: string; holder: string; until: string; id: string; heldLane: string };

/** `unknown`: the backend never had this lease; `not-active`: it ended (released or expired). */
export type ChangeResult = { status: 'done'; lease: Lease } | { status: 'not-active'; id: string } | { status: 'unknown'; id: string };

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
  acquire(lanes: readonly string[], request: { holder: string; ttlMs: number }): Promise<AcquireResult[]>;
  /** Releases leases (releasing one that already ended is harmless). */
  release(ids: readonly string[]): Promise<ChangeResult[]>;
  /** Extends live leases by `ttlMs` from now; an ended lease cannot be renewed (its lane may be taken). */
  renew(ids: readonly string[], ttlMs: number): Promise<ChangeResult[]>;
  /** Drops the expired entries the table still holds; returns them. */
  gc(): Promise<Lease[]>;
  /** Calls `onChange` when the table may have changed (a file watch); returns how to stop. Absent: no watching, the renewals tell. */
  watch?(onChange: () => void): () => void;
  /** How the store was replaced since the backend was opened (a journal swapped for a link…), or null. */
  replaced?(): string | null;
}

/** The decision on a request, taken on one snapshot. */
export type LanesDecision = { status: 'acquired' } | { status: 'refused'; lane: string; lease: Lease };

/**
 * May `holder` take all of `lanes` now, given the live leases of one snapshot? The one place both
 * backends decide: the first lane refused refuses the request. Throws `InputError` for a lane with
 * no canonical spelling.
 *
 * NOTE: the rule itself is the planner's (`decideAcquire`: path overlap, the whole repository);
 * swapping in a richer one (import contention, root files) changes this function only.
 */
export function decideLanes(active: readonly Lease[], lanes: readonly string[], holder: string): LanesDecision {
  for (const lane of lanes) {
    const decision = decideAcquire(active, lane, holder);
    if (decision.status === 'refused') return { status: 'refused', lane, lease: decision.lease };
  }
  return { status: 'acquired' };
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
