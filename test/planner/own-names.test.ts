import { describe, expect, it } from 'vitest';
import { RoutingConfigSchema } from '@waves/dispatch';
import { analyzePlan, labelRank, routeTier } from '@waves/planner';
import { issue, NOW } from '../helpers/issues.js';
import { makeRepo } from '../helpers/repo.js';

/** Names every JavaScript object answers to, unless a lookup asks for own properties only. */
const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

describe('names from issues and the config', () => {
  it('takes a lane label naming an Object property as a lane name, never as a configured lane', () => {
    const repo = makeRepo({ files: ['src/a.ts', 'constructor/x.ts'] });
    for (const name of PROTOTYPE_NAMES) {
      const issues = [issue(1, { labels: [`lane:${name}`], body: '`src/a.ts`' })];
      const { plan } = analyzePlan({ issues, repo, options: { lanes: { real: { paths: ['src/**'] } } }, now: NOW });
      expect(plan.waves.flatMap((w) => w.issues.map((i) => i.number)), name).toEqual([1]);
    }
  });

  it('gives no rank to priority labels naming an Object property', () => {
    for (const name of PROTOTYPE_NAMES) expect(labelRank(`priority:${name}`), name).toBeNull();
  });

  it('routes a category to a tier named like an Object property only when that tier is configured', () => {
    const routing = { categories: { arch: 'toString' }, tiers: { default: {} }, maxNonDefaultConcurrent: 1 };
    expect(routeTier('arch', routing).tier).toBe('default');
    const parsed = RoutingConfigSchema.safeParse({ categories: { arch: 'toString' }, tiers: { default: { model: 'm' } } });
    expect(parsed.success).toBe(false);
    expect(RoutingConfigSchema.safeParse({ tiers: { constructor: { model: 'm' } } }).success).toBe(false);
  });
});
