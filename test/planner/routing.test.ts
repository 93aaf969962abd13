import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planWaves, routeTier, verifyPlan, type RoutingRules } from '@waves/planner';
import { issue, NOW } from '../helpers/issues.js';
import { makeRepo } from '../helpers/repo.js';

const ROUTING: RoutingRules = {
  categories: { bug: 'default', architecture: 'strong', hard: 'review', typo: 'nope' },
  tiers: { default: {}, strong: {}, review: { manualOnly: true } },
  maxNonDefaultConcurrent: 1,
};

describe('model routing', () => {
  it('maps categories to tiers, unknown and missing ones to default, and never reaches a manual-only tier', () => {
    expect(routeTier('architecture', ROUTING)).toEqual({ tier: 'strong', rule: 'category:architecture → strong' });
    expect(routeTier('Architecture', ROUTING).tier).toBe('strong');
    expect(routeTier('bug', ROUTING).tier).toBe('default');
    expect(routeTier(null, ROUTING)).toEqual({ tier: 'default', rule: 'no category label → default' });
    expect(routeTier('unknown', ROUTING)).toEqual({ tier: 'default', rule: 'category:unknown is not routed → default' });
    expect(routeTier('hard', ROUTING)).toEqual({ tier: 'default', rule: 'category:hard → review, manual only → default' });
    expect(routeTier('typo', ROUTING).tier).toBe('default');
    expect(routeTier('architecture', null).tier).toBe('default');
  });

  it('never reaches a manual-only tier, whatever the labels', () => {
    fc.assert(
      fc.property(fc.string(), (category) => {
        expect(routeTier(category, ROUTING).tier).not.toBe('review');
      }),
    );
  });

  it('never puts more non-default-tier issues in a wave than the cap', () => {
    const files = Array.from({ length: 12 }, (_, i) => `src/f${i}.ts`);
    const repo = makeRepo({ files });
    fc.assert(
      fc.property(fc.array(fc.constantFrom('architecture', 'bug', null), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 3 }), (categories, cap) => {
        const issues = categories.map((c, i) => issue(i + 1, { body: `\`${files[i]}\``, labels: c ? [`category:${c}`] : [] }));
        const input = { issues, repo, options: { routing: { ...ROUTING, maxNonDefaultConcurrent: cap }, maxWaves: 20, top: 20 }, now: NOW };
        const plan = planWaves(input);
        expect(verifyPlan(plan, input)).toEqual([]);
        for (const wave of plan.waves) expect(wave.issues.filter((i) => i.tier !== 'default').length).toBeLessThanOrEqual(cap);
        const strong = categories.filter((c) => c === 'architecture').length;
        expect(plan.waves.length).toBeGreaterThanOrEqual(Math.ceil(strong / cap));
      }),
      { numRuns: 100 },
    );
  });

  it('shows the tier and the rule on each issue of the plan', () => {
    const repo = makeRepo({ files: ['a.ts', 'b.ts'] });
    const plan = planWaves({ issues: [issue(1, { body: '`a.ts`', labels: ['category:architecture'] }), issue(2, { body: '`b.ts`' })], repo, options: { routing: ROUTING }, now: NOW });
    expect(plan.waves[0]!.issues.map((i) => [i.number, i.tier, i.tierRule])).toEqual([
      [1, 'strong', 'category:architecture → strong'],
      [2, 'default', 'no category label → default'],
    ]);
  });
});
