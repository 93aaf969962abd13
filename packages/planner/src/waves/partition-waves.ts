/**
 * Partitions dispatchable issues into ordered waves: no conflicting pair shares a wave, at most
 * `waveSize` issues a wave, a serial issue alone in its wave, every dependency in a strictly
 * earlier wave. Objective: fewest waves first, then higher-priority issues earlier (the vector of
 * wave indices in rank order, lexicographically smallest).
 *
 * Algorithms:
 * - Upper bound: the better of two greedy constructions that build one wave at a time —
 *   priority list scheduling, and Recursive Largest First (RLF, Leighton 1979), a colouring
 *   heuristic at least as strong as DSatur on most graphs.
 * - Exact (up to `exactLimit` issues): a constraint search over wave domains as bitmasks —
 *   forward checking, most-constrained-variable first (the DSatur rule), capacity and
 *   serial-slot counting bounds, and wave-symmetry breaking when no dependency orders the waves.
 *   It proves the smallest feasible wave count between a lower bound (cliques, capacity, serial
 *   issues, dependency chains) and the greedy bound, then fixes issues in rank order to the
 *   earliest wave that still admits a solution of that size.
 * The search counts nodes rather than time, so its result never depends on the machine; when
 * the budget runs out the best plan found so far is used and `optimal` is false.
 */
import { sortedIncludes } from '../sorted-search.js';

export interface PartitionProblem {
  /** Issues in rank order: index 0 is the most urgent. */
  size: number;
  /** Unordered conflicting pairs (indices): any iterable, read once (a plan streams n²/2 of them). */
  conflicts: Iterable<readonly [number, number]>;
  /** `[before, after]`: `before` must be in a strictly earlier wave than `after`. */
  precedences: readonly (readonly [number, number])[];
  serial: readonly boolean[];
  waveSize: number;
  /** Most non-default-tier issues in one wave (Infinity for no cap). */
  maxNonDefaultPerWave?: number;
  nonDefault?: readonly boolean[];
  exactLimit: number;
  searchBudget: number;
}

export interface PartitionResult {
  /** Waves in order, each a sorted list of issue indices. */
  waves: number[][];
  optimal: boolean;
  lowerBound: number;
}

interface Model {
  n: number;
  /** Each issue's neighbours (conflicts and precedences), once each, in the order first met. */
  adj: Int32Array[];
  /** The same, sorted: for `adjacent`. */
  sortedAdj: Int32Array[];
  before: number[][]; // before[v]: issues that must precede v
  after: number[][]; // after[v]: issues that must follow v
  serial: readonly boolean[];
  cap: number;
  nonDefault: readonly boolean[];
  nonDefaultCap: number;
  hasPrecedence: boolean;
}

/** A growing list of 32-bit integers. */
class IntList {
  data = new Int32Array(1024);
  length = 0;
  push(x: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = x;
  }
}

/**
 * NOTE: neighbours are typed arrays over one buffer, not sets: issues that all conflict make
 * n²/2 pairs, and a set entry costs tens of bytes where an array slot costs four.
 */
function buildModel(p: PartitionProblem): Model {
  const n = p.size;
  const before = Array.from({ length: n }, () => [] as number[]);
  const after = Array.from({ length: n }, () => [] as number[]);
  // Every edge in the order met: conflicts (read once), then precedences.
  const ends = new IntList();
  const check = (x: number, y: number) => {
    if (!(Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < n && y < n)) throw new RangeError(`partition: the pair [${x}, ${y}] names an issue outside 0..${n - 1}`);
  };
  for (const [x, y] of p.conflicts) {
    check(x, y);
    if (x === y) continue;
    ends.push(x);
    ends.push(y);
  }
  for (const [x, y] of p.precedences) {
    check(x, y);
    before[y]!.push(x);
    after[x]!.push(y);
    ends.push(x);
    ends.push(y);
  }
  const start = new Int32Array(n + 1);
  for (let i = 0; i < ends.length; i++) start[ends.data[i]! + 1]!++;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, n);
  const flat = new Int32Array(ends.length);
  for (let i = 0; i < ends.length; i += 2) {
    const x = ends.data[i]!;
    const y = ends.data[i + 1]!;
    flat[fill[x]!++] = y;
    flat[fill[y]!++] = x;
  }
  // Drop repeats (a pair conflicting by path and by import, a dependency between conflicting
  // issues), keeping each neighbour where first met.
  const seenBy = new Int32Array(n).fill(-1);
  const adj: Int32Array[] = [];
  const sortedAdj: Int32Array[] = [];
  for (let v = 0; v < n; v++) {
    let kept = start[v]!;
    for (let i = start[v]!; i < start[v + 1]!; i++) {
      const u = flat[i]!;
      if (seenBy[u] === v) continue;
      seenBy[u] = v;
      flat[kept++] = u;
    }
    adj.push(flat.subarray(start[v]!, kept));
    sortedAdj.push(adj[v]!.slice().sort());
  }
  return {
    n,
    adj,
    sortedAdj,
    before,
    after,
    serial: p.serial,
    cap: p.waveSize,
    nonDefault: p.nonDefault ?? Array.from({ length: n }, () => false),
    nonDefaultCap: p.maxNonDefaultPerWave ?? Number.POSITIVE_INFINITY,
    hasPrecedence: p.precedences.length > 0,
  };
}

/** Whether `u` is a neighbour of `v`: a binary search. */
function adjacent(model: Model, v: number, u: number): boolean {
  return sortedIncludes(model.sortedAdj[v]!, u);
}

/** Longest chain of predecessors ending at each issue (0 when it has none). */
function chainDepths(model: Model, edges: number[][]): number[] {
  const memo = new Array<number>(model.n).fill(-1);
  const visit = (v: number): number => {
    if (memo[v]! >= 0) return memo[v]!;
    memo[v] = 0;
    let best = 0;
    for (const u of edges[v]!) best = Math.max(best, visit(u) + 1);
    memo[v] = best;
    return best;
  };
  for (let v = 0; v < model.n; v++) visit(v);
  return memo;
}

function lowerBound(model: Model, heads: number[]): number {
  const { n } = model;
  if (n === 0) return 0;
  const serialCount = model.serial.filter(Boolean).length;
  const others = n - serialCount;
  // A greedy clique among non-serial issues, grown from the most conflicted ones (at most 64 seeds,
  // so the bound stays cheap on thousands of issues).
  let clique = 0;
  const adjacentMembers = new Int32Array(n);
  const order = [...Array(n).keys()].filter((v) => !model.serial[v]).sort((x, y) => model.adj[y]!.length - model.adj[x]!.length || x - y);
  for (const seed of order.slice(0, 64)) {
    // A clique through the seed has at most its degree + 1 members; the seeds come by falling
    // degree, so once that cannot beat the best, no later seed can either.
    if (model.adj[seed]!.length + 1 <= clique) break;
    // An issue joins when every member so far conflicts with it: counted, not looked up per member.
    adjacentMembers.fill(0);
    const members: number[] = [];
    const join = (m: number) => {
      members.push(m);
      for (const u of model.adj[m]!) adjacentMembers[u]!++;
    };
    join(seed);
    for (const v of model.adj[seed]!) if (!model.serial[v] && adjacentMembers[v] === members.length) join(v);
    clique = Math.max(clique, members.length);
  }
  const nonDefaultCount = model.nonDefault.filter((x, i) => x && !model.serial[i]).length;
  const byNonDefault = Number.isFinite(model.nonDefaultCap) ? Math.ceil(nonDefaultCount / Math.max(1, model.nonDefaultCap)) : 0;
  const chain = Math.max(...heads) + 1;
  return Math.max(serialCount + Math.max(Math.ceil(others / model.cap), clique, byNonDefault), chain);
}

/**
 * Builds waves one at a time from the issues whose predecessors are all in earlier waves.
 * `choose` picks the next issue for the current wave among the candidates that fit, or -1.
 *
 * NOTE: everything is incremental, so a partition costs O(n + edges) plus what `choose` spends,
 * not O(waves · n): the ready issues are a linked list in rank order (an issue leaves it when
 * placed, joins it when its last predecessor is placed), and the issues that could still join the
 * wave are counted by kind (`open*`), so `choose` answers -1 at once when none fits — with every
 * issue conflicting with every other, each wave is one issue and costs that issue's edges (and,
 * for RLF, one look at each ready issue to find the most conflicted one).
 */
function greedyWaves(model: Model, choose: (state: GreedyState) => number): number[][] {
  const { n } = model;
  const state: GreedyState = {
    model,
    placed: new Uint8Array(n),
    blockedIn: new Int32Array(n).fill(-1),
    joinedIn: new Int32Array(n).fill(-1),
    pendingPreds: Int32Array.from(model.before, (preds) => preds.length),
    next: new Int32Array(n + 1),
    prev: new Int32Array(n + 1),
    ready: new Uint8Array(n),
    readyCount: [0, 0, 0, 0],
    open: [0, 0, 0, 0],
    wave: [],
    waveIndex: 0,
    nonDefaultInWave: 0,
    unplacedDegree: Int32Array.from(model.adj, (a) => a.length),
    excludedNeighbours: new Int32Array(n),
    newlyBlocked: [],
    candidates: null,
    marks: new Uint8Array(n),
    cursor: n,
  };
  const HEAD = n;
  state.next[HEAD] = HEAD;
  state.prev[HEAD] = HEAD;
  const initial: number[] = [];
  for (let v = 0; v < n; v++) if (state.pendingPreds[v] === 0) initial.push(v);
  insertReady(state, initial);
  const waves: number[][] = [];
  let remaining = n;
  while (remaining > 0) {
    state.open = [...state.readyCount];
    state.wave = [];
    state.nonDefaultInWave = 0;
    state.newlyBlocked.length = 0;
    state.candidates = null;
    state.cursor = state.next[HEAD]!;
    for (;;) {
      const v = choose(state);
      if (v < 0) break;
      addToWave(state, v);
      if (model.serial[v] || state.wave.length >= model.cap) break;
    }
    if (state.wave.length === 0) throw new Error('partition: no issue can start (dependency cycle?)');
    const released: number[] = [];
    for (const v of state.wave) {
      state.placed[v] = 1;
      remaining--;
      unlinkReady(state, v);
      for (const u of model.after[v]!) if (--state.pendingPreds[u]! === 0) released.push(u);
      for (const u of model.adj[v]!) state.unplacedDegree[u]!--;
    }
    insertReady(state, released.sort((x, y) => x - y));
    waves.push([...state.wave].sort((x, y) => x - y));
    state.waveIndex++;
  }
  return waves;
}

interface GreedyState {
  model: Model;
  placed: Uint8Array;
  /** The wave index in which an issue is blocked by a conflicting member (-1: never). */
  blockedIn: Int32Array;
  /** The wave index an issue joined (-1: none yet). */
  joinedIn: Int32Array;
  pendingPreds: Int32Array;
  /** The ready issues (unplaced, every predecessor placed): a doubly linked list in rank order, head `n`. */
  next: Int32Array;
  prev: Int32Array;
  ready: Uint8Array;
  /** Ready issues by kind (see `kindOf`). */
  readyCount: number[];
  /** Ready issues by kind that are neither blocked in this wave nor in it. */
  open: number[];
  wave: number[];
  waveIndex: number;
  nonDefaultInWave: number;
  /** Conflicts with issues still unplaced. */
  unplacedDegree: Int32Array;
  /** For RLF: neighbours already excluded from the current wave (kept for the open issues only). */
  excludedNeighbours: Int32Array;
  /** For RLF: unplaced issues blocked since `excludedNeighbours` was last brought up to date. */
  newlyBlocked: number[];
  /** For RLF: the open issues of the wave after its first pick, in rank order (null before). */
  candidates: number[] | null;
  /** For RLF: scratch marks of the candidates while counting. */
  marks: Uint8Array;
  /** For list scheduling: where the scan of the ready list resumes (`n`: the end). */
  cursor: number;
}

/** 0: plain, 1: serial, 2: non-default tier, 3: both. */
function kindOf(model: Model, v: number): number {
  return (model.serial[v] ? 1 : 0) | (model.nonDefault[v] ? 2 : 0);
}

/** Inserts issues (sorted) into the ready list, keeping it in rank order: one pass over the list. */
function insertReady(state: GreedyState, issues: readonly number[]): void {
  if (issues.length === 0) return;
  const { next, prev } = state;
  const head = state.model.n;
  let at = head; // insert after `at`
  for (const v of issues) {
    while (next[at] !== head && next[at]! < v) at = next[at]!;
    next[v] = next[at]!;
    prev[v] = at;
    prev[next[at]!] = v;
    next[at] = v;
    at = v;
    state.ready[v] = 1;
    state.readyCount[kindOf(state.model, v)]!++;
  }
}

function unlinkReady(state: GreedyState, v: number): void {
  const { next, prev } = state;
  next[prev[v]!] = next[v]!;
  prev[next[v]!] = prev[v]!;
  state.ready[v] = 0;
  state.readyCount[kindOf(state.model, v)]!--;
}

/** How many ready issues could still join the wave: open, and allowed by the serial rule and the tier cap. */
function fitting(state: GreedyState): number {
  const [plain, serial, heavy, both] = state.open as [number, number, number, number];
  const serialOk = state.wave.length === 0;
  const heavyOk = state.nonDefaultInWave < state.model.nonDefaultCap;
  return plain + (serialOk ? serial : 0) + (heavyOk ? heavy : 0) + (serialOk && heavyOk ? both : 0);
}

function canJoin(state: GreedyState, v: number): boolean {
  const { model } = state;
  if (state.placed[v] || state.joinedIn[v] === state.waveIndex || state.blockedIn[v] === state.waveIndex) return false;
  if (model.serial[v] && state.wave.length > 0) return false;
  if (model.nonDefault[v] && state.nonDefaultInWave >= model.nonDefaultCap) return false;
  return true;
}

function addToWave(state: GreedyState, v: number): void {
  const { model } = state;
  state.wave.push(v);
  state.joinedIn[v] = state.waveIndex;
  state.open[kindOf(model, v)]!--;
  if (model.nonDefault[v]) state.nonDefaultInWave++;
  for (const u of model.adj[v]!) {
    if (state.blockedIn[u] === state.waveIndex) continue;
    state.blockedIn[u] = state.waveIndex;
    if (state.ready[u]) state.open[kindOf(model, u)]!--;
    // u leaves the candidates: its neighbours now have one more excluded neighbour (RLF).
    if (!state.placed[u]) state.newlyBlocked.push(u);
  }
}

/** Priority list scheduling: the most urgent issue that fits. */
function listScheduling(model: Model): number[][] {
  return greedyWaves(model, (state) => {
    state.newlyBlocked.length = 0; // only RLF counts excluded neighbours
    if (fitting(state) === 0) return -1;
    // An issue that does not fit now never fits later in the wave (the wave only grows), so the
    // scan resumes after the last pick instead of starting over.
    for (let v = state.cursor; v !== model.n; v = state.next[v]!) {
      if (canJoin(state, v)) {
        state.cursor = state.next[v]!;
        return v;
      }
    }
    state.cursor = model.n;
    return -1;
  });
}

/** RLF: open a wave with the issue of most conflicts, then add the one that excludes the most others. */
function recursiveLargestFirst(model: Model): number[][] {
  return greedyWaves(model, (state) => {
    if (fitting(state) === 0) return -1;
    if (state.wave.length === 0) {
      // First pick: most conflicts among unplaced issues, the most urgent on ties.
      let best = -1;
      let bestDegree = -1;
      for (let v = state.next[model.n]!; v !== model.n; v = state.next[v]!) {
        state.excludedNeighbours[v] = 0;
        if (canJoin(state, v) && state.unplacedDegree[v]! > bestDegree) {
          best = v;
          bestDegree = state.unplacedDegree[v]!;
        }
      }
      return best;
    }
    // Later picks: most neighbours already excluded, then fewest others. Only the open issues can
    // still be picked, so only their counts are kept, and each blocked issue is counted through
    // its neighbours or through the open issues, whichever is fewer.
    let candidates = state.candidates;
    if (candidates === null) {
      candidates = [];
      for (let v = state.next[model.n]!; v !== model.n; v = state.next[v]!) if (canJoinByMarks(state, v)) candidates.push(v);
    } else candidates = candidates.filter((v) => canJoinByMarks(state, v));
    state.candidates = candidates;
    const isCandidate = state.marks;
    for (const v of candidates) isCandidate[v] = 1;
    for (const u of state.newlyBlocked) {
      const neighbours = model.adj[u]!;
      if (neighbours.length <= candidates.length) {
        for (const w of neighbours) if (isCandidate[w]) state.excludedNeighbours[w]!++;
      } else for (const w of candidates) if (adjacent(model, u, w)) state.excludedNeighbours[w]!++;
    }
    for (const v of candidates) isCandidate[v] = 0;
    state.newlyBlocked.length = 0;
    let best = -1;
    let bestKey1 = -1;
    let bestKey2 = Infinity;
    for (const v of candidates) {
      if (!canJoin(state, v)) continue;
      const key1 = state.excludedNeighbours[v]!;
      const key2 = state.unplacedDegree[v]! - key1;
      if (key1 > bestKey1 || (key1 === bestKey1 && key2 < bestKey2)) {
        best = v;
        bestKey1 = key1;
        bestKey2 = key2;
      }
    }
    return best;
  });
}

/** Ready, not blocked in this wave and not in it (the serial rule and the tier cap aside). */
function canJoinByMarks(state: GreedyState, v: number): boolean {
  return state.joinedIn[v] !== state.waveIndex && state.blockedIn[v] !== state.waveIndex;
}

function waveVector(waves: number[][], n: number): number[] {
  const vector = new Array<number>(n).fill(0);
  waves.forEach((wave, i) => wave.forEach((v) => (vector[v] = i)));
  return vector;
}

function compareVectors(x: number[], y: number[]): number {
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function better(x: number[][], y: number[][], n: number): boolean {
  if (x.length !== y.length) return x.length < y.length;
  return compareVectors(waveVector(x, n), waveVector(y, n)) < 0;
}

function popcount(x: number): number {
  let c = 0;
  while (x) {
    x &= x - 1;
    c++;
  }
  return c;
}

class BudgetExceeded extends Error {}

/**
 * Searches for an assignment of every issue to one of `k` waves satisfying all constraints,
 * with `fixed` issues already placed. Returns the assignment, null when none exists, or throws
 * `BudgetExceeded`.
 */
class WaveSearch {
  nodes = 0;
  constructor(
    private readonly model: Model,
    private readonly budget: { remaining: number },
    private readonly heads: number[],
    private readonly tails: number[],
  ) {}

  solve(k: number, fixed: ReadonlyMap<number, number>): number[] | null {
    const { n } = this.model;
    const full = k >= 31 ? -1 >>> 0 : (1 << k) - 1;
    const domain = new Array<number>(n);
    for (let v = 0; v < n; v++) {
      // Waves it can reach given its chains of predecessors and successors.
      let mask = 0;
      for (let w = this.heads[v]!; w <= k - 1 - this.tails[v]!; w++) mask |= 1 << w;
      domain[v] = mask & full;
      if (domain[v] === 0) return null;
    }
    const state: SearchState = {
      k,
      assignment: new Array<number>(n).fill(-1),
      domain,
      count: new Array<number>(k).fill(0),
      nonDefaultCount: new Array<number>(k).fill(0),
      serialWave: new Array<boolean>(k).fill(false),
      unassigned: n,
    };
    for (const [v, w] of [...fixed.entries()].sort((x, y) => x[0] - y[0])) {
      if ((state.domain[v]! & (1 << w)) === 0) return null;
      if (!this.assign(state, v, w)) return null;
    }
    return this.search(state) ? state.assignment : null;
  }

  private assign(s: SearchState, v: number, w: number): boolean {
    const m = this.model;
    if (s.serialWave[w]) return false;
    if (m.serial[v] && s.count[w]! > 0) return false;
    if (s.count[w]! >= m.cap) return false;
    if (m.nonDefault[v] && s.nonDefaultCount[w]! >= m.nonDefaultCap) return false;
    s.assignment[v] = w;
    s.unassigned--;
    s.count[w]!++;
    if (m.nonDefault[v]) s.nonDefaultCount[w]!++;
    const bit = 1 << w;
    const notBit = ~bit;
    const closeWave = m.serial[v] || s.count[w] === m.cap;
    if (m.serial[v]) s.serialWave[w] = true;
    const closeNonDefault = m.nonDefault[v] && s.nonDefaultCount[w] === m.nonDefaultCap;
    for (let u = 0; u < m.n; u++) {
      if (s.assignment[u] !== -1) continue;
      let d = s.domain[u]!;
      if (closeWave || adjacent(m, v, u) || (m.serial[u] && !m.serial[v]) || (closeNonDefault && m.nonDefault[u])) d &= notBit;
      s.domain[u] = d;
    }
    if (m.hasPrecedence) {
      const later = ~((bit << 1) - 1); // waves after w
      const earlier = bit - 1; // waves before w
      for (const u of m.after[v]!) if (s.assignment[u] === -1) s.domain[u]! &= later;
      for (const u of m.before[v]!) if (s.assignment[u] === -1) s.domain[u]! &= earlier;
    }
    for (let u = 0; u < m.n; u++) if (s.assignment[u] === -1 && s.domain[u] === 0) return false;
    return this.countingBound(s);
  }

  /** Enough empty waves for the serial issues left, and enough room for the others. */
  private countingBound(s: SearchState): boolean {
    const m = this.model;
    let serialLeft = 0;
    let othersLeft = 0;
    for (let u = 0; u < m.n; u++) {
      if (s.assignment[u] !== -1) continue;
      if (m.serial[u]) serialLeft++;
      else othersLeft++;
    }
    let empty = 0;
    let room = 0;
    for (let w = 0; w < s.k; w++) {
      if (s.count[w] === 0) empty++;
      else if (!s.serialWave[w]) room += m.cap - s.count[w]!;
    }
    if (empty < serialLeft) return false;
    return room + (empty - serialLeft) * m.cap >= othersLeft;
  }

  private search(s: SearchState): boolean {
    if (s.unassigned === 0) return true;
    if (++this.nodes, --this.budget.remaining < 0) throw new BudgetExceeded();
    const m = this.model;
    // Most constrained issue first; then the most conflicts among unplaced; then rank.
    let best = -1;
    let bestSize = Infinity;
    let bestDegree = -1;
    for (let u = 0; u < m.n; u++) {
      if (s.assignment[u] !== -1) continue;
      const size = popcount(s.domain[u]!);
      if (size > bestSize) continue;
      let degree = 0;
      for (const x of m.adj[u]!) if (s.assignment[x] === -1) degree++;
      if (size < bestSize || degree > bestDegree) {
        best = u;
        bestSize = size;
        bestDegree = degree;
      }
    }
    const v = best;
    const domain = s.domain[v]!;
    let triedEmpty = false;
    for (let w = 0; w < s.k; w++) {
      if ((domain & (1 << w)) === 0) continue;
      if (!m.hasPrecedence && s.count[w] === 0) {
        // Without dependencies, empty waves are interchangeable: trying one is enough.
        if (triedEmpty) continue;
        triedEmpty = true;
      }
      const saved = { domain: [...s.domain], count: [...s.count], nonDefault: [...s.nonDefaultCount], serial: [...s.serialWave] };
      if (this.assign(s, v, w) && this.search(s)) return true;
      s.domain = saved.domain;
      s.count = saved.count;
      s.nonDefaultCount = saved.nonDefault;
      s.serialWave = saved.serial;
      s.assignment[v] = -1;
      s.unassigned++;
    }
    return false;
  }
}

interface SearchState {
  k: number;
  assignment: number[];
  domain: number[];
  count: number[];
  nonDefaultCount: number[];
  serialWave: boolean[];
  unassigned: number;
}

function wavesFromAssignment(assignment: number[], k: number): number[][] {
  const waves = Array.from({ length: k }, () => [] as number[]);
  assignment.forEach((w, v) => waves[w]!.push(v));
  return waves.filter((w) => w.length > 0);
}

export function partitionWaves(problem: PartitionProblem): PartitionResult {
  const model = buildModel(problem);
  if (model.n === 0) return { waves: [], optimal: true, lowerBound: 0 };
  const heads = chainDepths(model, model.before);
  const tails = chainDepths(model, model.after);
  const lb = lowerBound(model, heads);
  const listed = listScheduling(model);
  const rlf = recursiveLargestFirst(model);
  let best = better(rlf, listed, model.n) ? rlf : listed;
  if (model.n > problem.exactLimit || best.length > 30) {
    return { waves: best, optimal: best.length === lb, lowerBound: lb };
  }

  const budget = { remaining: problem.searchBudget };
  const search = new WaveSearch(model, budget, heads, tails);
  let k = best.length;
  let optimal = true;
  try {
    for (let candidate = lb; candidate < best.length; candidate++) {
      const found = search.solve(candidate, new Map());
      if (found) {
        best = wavesFromAssignment(found, candidate);
        k = candidate;
        break;
      }
    }
  } catch (error) {
    if (!(error instanceof BudgetExceeded)) throw error;
    optimal = false;
  }
  if (!optimal) return { waves: best, optimal: best.length === lb, lowerBound: lb };

  // Fewest waves is settled; now place issues in rank order as early as that allows.
  const fixed = new Map<number, number>();
  try {
    for (let v = 0; v < model.n; v++) {
      let placed = false;
      for (let w = 0; w < k && !placed; w++) {
        fixed.set(v, w);
        const found = search.solve(k, fixed);
        if (found) {
          const candidate = wavesFromAssignment(found, k);
          if (better(candidate, best, model.n) || compareVectors(waveVector(candidate, model.n), waveVector(best, model.n)) === 0) best = candidate;
          placed = true;
        } else fixed.delete(v);
      }
      if (!placed) break; // cannot happen: `best` itself places v
    }
  } catch (error) {
    if (!(error instanceof BudgetExceeded)) throw error;
  }
  return { waves: best, optimal: true, lowerBound: lb };
}
