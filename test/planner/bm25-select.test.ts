/** The floor of a BM25 search's best hits is selected in place, not sorted: the same value a sort gives. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nthLargest } from '../../packages/planner/dist/infer/bm25.js';

describe('nthLargest', () => {
  it('is the n-th value of the values sorted from the largest, ties and repeats included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ noNaN: true, min: 0, max: 50 }), fc.constantFrom(0, 1, 2.5)), { minLength: 1, maxLength: 300 }),
        fc.nat(),
        fc.nat({ max: 20 }),
        (values, pick, spare) => {
          const n = (pick % values.length) + 1;
          // Room beyond the values, as the search's buffer has: never read.
          const buffer = Float64Array.from([...values, ...Array.from({ length: spare }, () => 1e9)]);
          const sorted = [...values].sort((a, b) => b - a);
          expect(nthLargest(buffer, values.length, n)).toBe(sorted[n - 1]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
