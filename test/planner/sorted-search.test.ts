import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lowerBound, sortedIncludes } from '../../packages/planner/dist/sorted-search.js';

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('sorted search', () => {
  it('lowerBound is the first index whose item is not below the key, as a scan finds it', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 40 }), fc.string({ maxLength: 4 }), (items, key) => {
        const sorted = [...items].sort(byCodeUnits);
        const scan = sorted.findIndex((item) => !(item < key));
        expect(lowerBound(sorted, key)).toBe(scan === -1 ? sorted.length : scan);
      }),
    );
  });

  it('lowerBound and the next key after a prefix bound exactly the items under a folder', () => {
    const files = ['a/b.ts', 'a/b/c.ts', 'a/b0.ts', 'a/b/d/e.ts', 'a/ba.ts', 'b.ts'].sort(byCodeUnits);
    const under = files.slice(lowerBound(files, 'a/b/'), lowerBound(files, 'a/b0'));
    expect(under).toEqual(['a/b/c.ts', 'a/b/d/e.ts']);
  });

  it('sortedIncludes finds exactly the members of an ascending list', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -50, max: 50 }), { maxLength: 30 }), fc.integer({ min: -60, max: 60 }), (items, value) => {
        const sorted = [...items].sort((a, b) => a - b);
        expect(sortedIncludes(sorted, value)).toBe(items.includes(value));
      }),
    );
  });
});
