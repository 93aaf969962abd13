/**
 * Area fences: an issue whose best candidate is short of the threshold, but whose likeliest files
 * lie in one workspace package, is fenced to that package (plan mode), as a maintainer who knows
 * the area but not the file would send it.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AREA_FLOOR, areaFence, type Candidate } from '@waves/planner';

const candidate = (path: string, confidence: number): Candidate => ({
  path,
  confidence,
  evidence: [{ kind: 'scope', text: 'workflow', where: { field: 'title' }, matched: 'packages/workflow' }],
});
const PACKAGES = ['packages/workflow', 'packages/ui', 'packages/workflow-cc'];
const packageOf = (path: string) => PACKAGES.find((dir) => path.startsWith(`${dir}/`)) ?? null;

describe('areaFence', () => {
  it('fences a middling issue to the package of four of its five likeliest files', () => {
    const found = [
      candidate('packages/workflow/src/canvas/Node.tsx', 0.55),
      candidate('packages/workflow/src/index.tsx', 0.5),
      candidate('packages/ui/src/Button.tsx', 0.45),
      candidate('packages/workflow/src/Calculation.tsx', 0.4),
      candidate('packages/workflow/src/Variable.tsx', 0.35),
    ];
    const fence = areaFence(found, 0.7, packageOf);
    expect(fence).toEqual([{ path: 'packages/workflow', kind: 'dir', evidence: expect.objectContaining({ via: 'inferred-area', text: expect.stringMatching(/^packages\/workflow \(package of 4 of the 5 likeliest files; best packages\/workflow\/src\/canvas\/Node\.tsx \(55%/) }) }]);
    // A sibling package whose name starts the same is another package.
    expect(areaFence([candidate('packages/workflow-cc/src/a.ts', 0.5), ...found.slice(1)], 0.7, packageOf)).toEqual([]);
  });

  it('gives nothing when the files spread over packages, the best is sure enough for a fence of its own, too weak, or in the root package', () => {
    const spread = [candidate('packages/workflow/src/a.ts', 0.55), candidate('packages/ui/src/b.ts', 0.5), candidate('packages/ui/src/c.ts', 0.5), candidate('packages/workflow/src/d.ts', 0.4), candidate('packages/workflow/src/e.ts', 0.4)];
    expect(areaFence(spread, 0.7, packageOf)).toEqual([]);
    const inOne = ['a', 'b', 'c', 'd', 'e'].map((n, i) => candidate(`packages/workflow/src/${n}.ts`, 0.6 - i * 0.05));
    expect(areaFence(inOne, 0.7, packageOf)).toHaveLength(1);
    expect(areaFence(inOne.map((c) => ({ ...c, confidence: c.confidence + 0.2 })), 0.7, packageOf)).toEqual([]);
    expect(areaFence(inOne.map((c) => ({ ...c, confidence: 0.7 * AREA_FLOOR - 0.01 })), 0.7, packageOf)).toEqual([]);
    expect(areaFence(inOne.map((c) => ({ ...c, path: c.path.replace('packages/workflow/', '') })), 0.7, packageOf)).toEqual([]);
    // Two candidates are no area.
    expect(areaFence(inOne.slice(0, 2), 0.7, packageOf)).toEqual([]);
  });

  it('always fences, when it fences, one package holding the best candidate, and only below the threshold', () => {
    const files = PACKAGES.flatMap((p) => ['a', 'b', 'c'].map((n) => `${p}/src/${n}.ts`)).concat(['src/root.ts']);
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...files), { minLength: 1, maxLength: 5 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 5, maxLength: 5 }), fc.double({ min: 0.3, max: 0.95, noNaN: true }), (paths, confidences, threshold) => {
        const sorted = [...confidences].sort((a, b) => b - a);
        const found = paths.map((p, i) => candidate(p, sorted[i]!));
        const fence = areaFence(found, threshold, packageOf);
        if (fence.length === 0) return;
        expect(fence).toHaveLength(1);
        expect(PACKAGES).toContain(fence[0]!.path);
        expect(found[0]!.path.startsWith(`${fence[0]!.path}/`)).toBe(true);
        expect(found[0]!.confidence).toBeLessThan(threshold);
        expect(found.filter((c) => c.path.startsWith(`${fence[0]!.path}/`)).length).toBeGreaterThanOrEqual(Math.min(4, found.length));
      }),
    );
  });
});
