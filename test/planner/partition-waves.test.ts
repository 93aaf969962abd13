import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partitionWaves, type PartitionProblem } from '@waves/planner';

interface Instance {
  size: number;
  conflicts: [number, number][];
  precedences: [number, number][];
  serial: boolean[];
  waveSize: number;
}

const instanceArb = (maxSize: number): fc.Arbitrary<Instance> =>
  fc.integer({ min: 1, max: maxSize }).chain((size) => {
    const pairs: [number, number][] = [];
    for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) pairs.push([i, j]);
    return fc.record({
      size: fc.constant(size),
      conflicts: fc.subarray(pairs),
      // Precedences go from a lower to a higher index in a random permutation, so there is no cycle.
      precedences: fc
        .tuple(fc.subarray(pairs, { maxLength: Math.min(4, pairs.length) }), fc.shuffledSubarray([...Array(size).keys()], { minLength: size }))
        .map(([chosen, perm]) => chosen.map(([a, b]) => [perm[a]!, perm[b]!] as [number, number])),
      serial: fc.array(fc.integer({ min: 0, max: 99 }).map((x) => x < 15), { minLength: size, maxLength: size }),
      waveSize: fc.integer({ min: 1, max: 4 }),
    });
  });

function problem(inst: Instance, extra: Partial<PartitionProblem> = {}): PartitionProblem {
  return { ...inst, exactLimit: 20, searchBudget: 2_000_000, ...extra };
}

/** Brute force: every assignment of issues to k waves; the feasible ones with the fewest waves. */
function bruteForce(inst: Instance): { waves: number; best: number[] } {
  const n = inst.size;
  const conflict = new Set(inst.conflicts.map(([a, b]) => `${Math.min(a, b)}:${Math.max(a, b)}`));
  const valid = (v: number[], k: number): boolean => {
    for (let w = 0; w < k; w++) {
      const members = v.flatMap((x, i) => (x === w ? [i] : []));
      if (members.length === 0) return false; // no empty waves in between
      if (members.length > inst.waveSize) return false;
      if (members.length > 1 && members.some((i) => inst.serial[i])) return false;
      for (const a of members) for (const b of members) if (a < b && conflict.has(`${a}:${b}`)) return false;
    }
    return inst.precedences.every(([a, b]) => v[a]! < v[b]!);
  };
  for (let k = 1; k <= n; k++) {
    let best: number[] | null = null;
    const v = new Array<number>(n).fill(0);
    const total = k ** n;
    for (let code = 0; code < total; code++) {
      let c = code;
      for (let i = n - 1; i >= 0; i--) {
        v[i] = c % k;
        c = Math.floor(c / k);
      }
      // `code` counts up in lexicographic order of `v`, so the first valid one is the smallest.
      if (valid(v, k)) {
        best = [...v];
        break;
      }
    }
    if (best) return { waves: k, best };
  }
  throw new Error('no feasible partition');
}

function vectorOf(waves: number[][], n: number): number[] {
  const v = new Array<number>(n).fill(-1);
  waves.forEach((wave, w) => wave.forEach((i) => (v[i] = w)));
  return v;
}

function assertFeasible(inst: Instance, waves: number[][]): void {
  const v = vectorOf(waves, inst.size);
  expect(v.every((w) => w >= 0)).toBe(true);
  expect(waves.flat().length).toBe(inst.size);
  for (const wave of waves) {
    expect(wave.length).toBeGreaterThan(0);
    expect(wave.length).toBeLessThanOrEqual(inst.waveSize);
    if (wave.some((i) => inst.serial[i])) expect(wave).toHaveLength(1);
  }
  for (const [a, b] of inst.conflicts) expect(v[a]).not.toBe(v[b]);
  for (const [a, b] of inst.precedences) expect(v[a]!).toBeLessThan(v[b]!);
}

describe('partitionWaves', () => {
  it('always finds the fewest waves, and among those the earliest waves for the most urgent issues (vs brute force)', () => {
    fc.assert(
      fc.property(instanceArb(6), (inst) => {
        const result = partitionWaves(problem(inst));
        assertFeasible(inst, result.waves);
        const expected = bruteForce(inst);
        expect(result.waves.length).toBe(expected.waves);
        expect(vectorOf(result.waves, inst.size)).toEqual(expected.best);
        expect(result.optimal).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('always returns a feasible partition above the exact limit', () => {
    fc.assert(
      fc.property(instanceArb(40), (inst) => {
        const result = partitionWaves(problem(inst, { exactLimit: 0 }));
        assertFeasible(inst, result.waves);
        expect(result.waves.length).toBeGreaterThanOrEqual(result.lowerBound);
        if (result.optimal) expect(result.waves.length).toBe(result.lowerBound);
      }),
      { numRuns: 200 },
    );
  });

  it('beats greedy list scheduling on a crown graph', () => {
    // Crown graph on 2×4 vertices ordered a0 b0 a1 b1 …: a_i conflicts with b_j for i ≠ j.
    // Taking issues in rank order puts a_i and b_i together and needs 4 waves; 2 suffice (all a, all b).
    const k = 4;
    const conflicts: [number, number][] = [];
    for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) if (i !== j) conflicts.push([2 * i, 2 * j + 1]);
    const inst: Instance = { size: 2 * k, conflicts, precedences: [], serial: new Array(2 * k).fill(false), waveSize: 4 };
    const result = partitionWaves(problem(inst));
    assertFeasible(inst, result.waves);
    expect(result.waves).toHaveLength(2);
    expect(result.optimal).toBe(true);
  });

  it('falls back to a feasible plan, marked not optimal, when the search budget runs out', () => {
    // Mycielski-style hard instance: a random dense graph where the bound is not tight.
    const size = 18;
    const conflicts: [number, number][] = [];
    for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) if ((i * 7 + j * 11) % 3 !== 0) conflicts.push([i, j]);
    const inst: Instance = { size, conflicts, precedences: [], serial: new Array(size).fill(false), waveSize: 4 };
    const result = partitionWaves(problem(inst, { searchBudget: 5 }));
    assertFeasible(inst, result.waves);
    if (!result.optimal) expect(result.waves.length).toBeGreaterThan(result.lowerBound);
  });

  it('places every serial issue in a wave of its own', () => {
    const inst: Instance = { size: 5, conflicts: [], precedences: [], serial: [false, true, false, true, false], waveSize: 4 };
    const result = partitionWaves(problem(inst));
    expect(result.waves).toEqual([[0, 2, 4], [1], [3]]);
  });

  it('orders a dependency chain into consecutive waves', () => {
    const inst: Instance = { size: 3, conflicts: [], precedences: [[2, 1], [1, 0]], serial: [false, false, false], waveSize: 4 };
    expect(partitionWaves(problem(inst)).waves).toEqual([[2], [1], [0]]);
  });
});
