import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderPlanJson } from '@waves/cli';
import { planWaves } from '@waves/planner';
import { scenarioArb } from '../arbitraries.js';

function check(value: object, pieceChars: number): void {
  const pieces = [...renderPlanJson(value, pieceChars)];
  expect(pieces.join('')).toBe(`${JSON.stringify(value, null, 2)}\n`);
  for (const piece of pieces) expect(piece.endsWith('\n')).toBe(true);
}

describe('renderPlanJson', () => {
  it('always writes exactly what JSON.stringify(plan, null, 2) writes, in pieces ending with a line feed', () => {
    fc.assert(
      fc.property(scenarioArb(), fc.integer({ min: 1, max: 400 }), ({ input }, pieceChars) => {
        check(planWaves(input), pieceChars);
      }),
      { numRuns: 100 },
    );
  });

  it('always writes what JSON.stringify writes for any object: undefined members left out, empty arrays, strings with line feeds', () => {
    const member = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.constant([]), fc.array(fc.oneof(fc.jsonValue(), fc.constant(undefined))));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), member), fc.integer({ min: 1, max: 200 }), (value, pieceChars) => check(value, pieceChars)),
      { numRuns: 300 },
    );
  });

  it('cuts a plan with many conflicts into pieces no longer than a line past the limit', () => {
    const conflicts = Array.from({ length: 5000 }, (_, i) => ({ a: 1, b: i + 2, kind: 'path', detail: 'both touch src/a.ts' }));
    const pieces = [...renderPlanJson({ schemaVersion: 1, waves: [], conflicts }, 4096)];
    expect(pieces.length).toBeGreaterThan(50);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(4096 + 200);
    expect(pieces.join('')).toBe(`${JSON.stringify({ schemaVersion: 1, waves: [], conflicts }, null, 2)}\n`);
  });
});
