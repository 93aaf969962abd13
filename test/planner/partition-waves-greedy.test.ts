/**
 * The greedy constructions of `partitionWaves` (list scheduling and RLF, and the lower bound) were
 * rewritten to scale with the conflicts rather than with waves × issues. The plan is deterministic
 * and people compare plans, so the rewrite must give exactly the old waves: this file keeps the old
 * implementation as a small reference and compares both on random problems.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partitionWaves, type PartitionProblem } from '@waves/planner';

// ---- reference: the greedy part of partition-waves.ts as of a32f09d, unchanged in substance ----

interface RefModel {
  n: number;
  adj: Set<number>[];
  before: number[][];
  after: number[][];
  serial: readonly boolean[];
  cap: number;
  nonDefault: readonly boolean[];
  nonDefaultCap: number;
}

function refModel(p: PartitionProblem): RefModel {
  const n = p.size;
  const adj = Array.from({ length: n }, () => new Set<number>());
  for (const [x, y] of p.conflicts) {
    if (x === y) continue;
    adj[x]!.add(y);
    adj[y]!.add(x);
  }
  const before = Array.from({ length: n }, () => [] as number[]);
  const after = Array.from({ length: n }, () => [] as number[]);
  for (const [x, y] of p.precedences) {
    before[y]!.push(x);
    after[x]!.push(y);
    adj[x]!.add(y);
    adj[y]!.add(x);
  }
  return {
    n,
    adj,
    before,
    after,
    serial: p.serial,
    cap: p.waveSize,
    nonDefault: p.nonDefault ?? Array.from({ length: n }, () => false),
    nonDefaultCap: p.maxNonDefaultPerWave ?? Number.POSITIVE_INFINITY,
  };
}

function refHeads(model: RefModel): number[] {
  const memo = new Array<number>(model.n).fill(-1);
  const visit = (v: number): number => {
    if (memo[v]! >= 0) return memo[v]!;
    memo[v] = 0;
    let best = 0;
    for (const u of model.before[v]!) best = Math.max(best, visit(u) + 1);
    memo[v] = best;
    return best;
  };
  for (let v = 0; v < model.n; v++) visit(v);
  return memo;
}

function refLowerBound(model: RefModel): number {
  const { n } = model;
  const serialCount = model.serial.filter(Boolean).length;
  const others = n - serialCount;
  let clique = 0;
  const order = [...Array(n).keys()].filter((v) => !model.serial[v]).sort((x, y) => model.adj[y]!.size - model.adj[x]!.size || x - y);
  for (const seed of order.slice(0, 64)) {
    const members = [seed];
    for (const v of model.adj[seed]!) if (!model.serial[v] && members.every((m) => model.adj[m]!.has(v))) members.push(v);
    clique = Math.max(clique, members.length);
  }
  const nonDefaultCount = model.nonDefault.filter((x, i) => x && !model.serial[i]).length;
  const byNonDefault = Number.isFinite(model.nonDefaultCap) ? Math.ceil(nonDefaultCount / Math.max(1, model.nonDefaultCap)) : 0;
  const chain = Math.max(...refHeads(model)) + 1;
  return Math.max(serialCount + Math.max(Math.ceil(others / model.cap), clique, byNonDefault), chain);
}

interface RefState {
  model: RefModel;
  placed: Uint8Array;
  blockedIn: Int32Array;
  pendingPreds: Int32Array;
  available: number[];
  wave: number[];
  waveIndex: number;
  nonDefaultInWave: number;
  unplacedDegree: Int32Array;
  excludedNeighbours: Int32Array;
}

function refGreedy(model: RefModel, choose: (state: RefState) => number): number[][] {
  const { n } = model;
  const state: RefState = {
    model,
    placed: new Uint8Array(n),
    blockedIn: new Int32Array(n).fill(-1),
    pendingPreds: Int32Array.from(model.before, (preds) => preds.length),
    available: [],
    wave: [],
    waveIndex: 0,
    nonDefaultInWave: 0,
    unplacedDegree: Int32Array.from(model.adj, (a) => a.size),
    excludedNeighbours: new Int32Array(n),
  };
  const waves: number[][] = [];
  let remaining = n;
  while (remaining > 0) {
    state.available = [];
    for (let v = 0; v < n; v++) if (!state.placed[v] && state.pendingPreds[v] === 0) state.available.push(v);
    state.wave = [];
    state.nonDefaultInWave = 0;
    state.excludedNeighbours.fill(0);
    for (;;) {
      const v = choose(state);
      if (v < 0) break;
      state.wave.push(v);
      if (model.nonDefault[v]) state.nonDefaultInWave++;
      for (const u of model.adj[v]!) {
        if (state.blockedIn[u] !== state.waveIndex) {
          state.blockedIn[u] = state.waveIndex;
          if (!state.placed[u]) for (const w of model.adj[u]!) state.excludedNeighbours[w]!++;
        }
      }
      if (model.serial[v] || state.wave.length >= model.cap) break;
    }
    if (state.wave.length === 0) throw new Error('partition: no issue can start (dependency cycle?)');
    for (const v of state.wave) {
      state.placed[v] = 1;
      remaining--;
      for (const u of model.after[v]!) state.pendingPreds[u]!--;
      for (const u of model.adj[v]!) state.unplacedDegree[u]!--;
    }
    waves.push([...state.wave].sort((x, y) => x - y));
    state.waveIndex++;
  }
  return waves;
}

function refCanJoin(state: RefState, v: number): boolean {
  const { model, wave } = state;
  if (state.placed[v] || wave.includes(v) || state.blockedIn[v] === state.waveIndex) return false;
  if (model.serial[v] && wave.length > 0) return false;
  if (model.nonDefault[v] && state.nonDefaultInWave >= model.nonDefaultCap) return false;
  return true;
}

const refList = (model: RefModel) =>
  refGreedy(model, (state) => {
    for (const v of state.available) if (refCanJoin(state, v)) return v;
    return -1;
  });

const refRlf = (model: RefModel) =>
  refGreedy(model, (state) => {
    let best = -1;
    let bestKey1 = -1;
    let bestKey2 = Infinity;
    for (const v of state.available) {
      if (!refCanJoin(state, v)) continue;
      const key1 = state.wave.length === 0 ? state.unplacedDegree[v]! : state.excludedNeighbours[v]!;
      const key2 = state.wave.length === 0 ? 0 : state.unplacedDegree[v]! - state.excludedNeighbours[v]!;
      if (key1 > bestKey1 || (key1 === bestKey1 && key2 < bestKey2)) {
        best = v;
        bestKey1 = key1;
        bestKey2 = key2;
      }
    }
    return best;
  });

function refVector(waves: number[][], n: number): number[] {
  const vector = new Array<number>(n).fill(0);
  waves.forEach((wave, i) => wave.forEach((v) => (vector[v] = i)));
  return vector;
}

/** The old greedy partition: the better of RLF and list scheduling, and the lower bound. */
function referenceGreedy(p: PartitionProblem): { waves: number[][]; lowerBound: number } | { error: string } {
  const model = refModel(p);
  try {
    const listed = refList(model);
    const rlf = refRlf(model);
    const [x, y] = [refVector(rlf, model.n), refVector(listed, model.n)];
    const first = x.findIndex((w, i) => w !== y[i]);
    const rlfBetter = rlf.length !== listed.length ? rlf.length < listed.length : first >= 0 && x[first]! < y[first]!;
    return { waves: rlfBetter ? rlf : listed, lowerBound: refLowerBound(model) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

// ---- random problems: sparse to complete conflict graphs, dependencies, serial issues, tiers ----

const problemArb: fc.Arbitrary<PartitionProblem> = fc
  .record({
    size: fc.integer({ min: 1, max: 60 }),
    density: fc.constantFrom(0, 0.05, 0.2, 0.5, 0.9, 1),
    seed: fc.integer(),
    precedenceCount: fc.integer({ min: 0, max: 12 }),
    serialShare: fc.constantFrom(0, 0.1, 0.5),
    heavyShare: fc.constantFrom(0, 0.3, 1),
    heavyCap: fc.constantFrom(0, 1, 2, Number.POSITIVE_INFINITY),
    waveSize: fc.integer({ min: 1, max: 8 }),
  })
  .map(({ size, density, seed, precedenceCount, serialShare, heavyShare, heavyCap, waveSize }) => {
    let state = seed >>> 0 || 1;
    const random = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const conflicts: [number, number][] = [];
    for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) if (random() < density) conflicts.push(random() < 0.5 ? [i, j] : [j, i]);
    // A pair may come twice (by path and by import) and an issue may name itself.
    for (const [x, y] of conflicts.slice(0, Math.floor(random() * 6))) conflicts.push(random() < 0.5 ? [x, y] : [y, x]);
    if (random() < 0.2) conflicts.push([0, 0]);
    // Conflicts arrive in any order (the adjacency order feeds the clique bound).
    for (let i = conflicts.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [conflicts[i], conflicts[j]] = [conflicts[j]!, conflicts[i]!];
    }
    // Precedences from a lower to a higher position of a random permutation: no cycle.
    const perm = [...Array(size).keys()].sort(() => random() - 0.5);
    const precedences: [number, number][] = [];
    for (let k = 0; k < precedenceCount && size > 1; k++) {
      const a = Math.floor(random() * size);
      const b = Math.floor(random() * size);
      if (a !== b) precedences.push([perm[Math.min(a, b)]!, perm[Math.max(a, b)]!]);
    }
    return {
      size,
      conflicts,
      precedences,
      serial: Array.from({ length: size }, () => random() < serialShare),
      nonDefault: Array.from({ length: size }, () => random() < heavyShare),
      maxNonDefaultPerWave: heavyCap,
      waveSize,
      exactLimit: 0,
      searchBudget: 0,
    };
  });

function greedyOf(p: PartitionProblem): { waves: number[][]; lowerBound: number; optimal: boolean } | { error: string } {
  try {
    const { waves, lowerBound, optimal } = partitionWaves(p);
    return { waves, lowerBound, optimal };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('partitionWaves greedy constructions', () => {
  it('always gives exactly the waves and lower bound of the old implementation', () => {
    fc.assert(
      fc.property(problemArb, (p) => {
        const expected = referenceGreedy(p);
        const actual = greedyOf(p);
        if ('error' in expected) expect(actual).toEqual(expected);
        else expect(actual).toEqual({ ...expected, optimal: expected.waves.length === expected.lowerBound });
      }),
      { numRuns: 400 },
    );
  });

  it('plans 300 issues that all conflict with each other one to a wave, most urgent first', () => {
    const size = 300;
    const conflicts: [number, number][] = [];
    for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) conflicts.push([i, j]);
    const result = partitionWaves({ size, conflicts, precedences: [], serial: new Array(size).fill(false), waveSize: 4, exactLimit: 20, searchBudget: 1000 });
    expect(result.waves).toEqual([...Array(size).keys()].map((v) => [v]));
    expect(result).toMatchObject({ optimal: true, lowerBound: size });
  });
});
