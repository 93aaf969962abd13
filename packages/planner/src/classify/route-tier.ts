/**
 * Model routing, the planner's part: which tier an issue runs on, from its `category:<name>`
 * label. Guardrails in code: an unknown or missing category is the default (cheap) tier, and a
 * manual-only tier (the most expensive) is never reached by routing. The partition then keeps
 * at most `maxNonDefaultConcurrent` non-default-tier issues in a wave.
 */
export interface RoutingRules {
  categories: Readonly<Record<string, string>>;
  tiers: Readonly<Record<string, { manualOnly?: boolean | undefined }>>;
  maxNonDefaultConcurrent: number;
}

export const DEFAULT_TIER = 'default';

export interface TierChoice {
  tier: string;
  /** The rule that chose it, for people: "category:bug → strong". */
  rule: string;
}

export function routeTier(category: string | null, routing: RoutingRules | null): TierChoice {
  if (category === null) return { tier: DEFAULT_TIER, rule: 'no category label → default' };
  if (!routing) return { tier: DEFAULT_TIER, rule: `category:${category}, no routing configured → default` };
  const lower = category.toLowerCase();
  const entry = Object.entries(routing.categories).find(([name]) => name.toLowerCase() === lower);
  if (!entry) return { tier: DEFAULT_TIER, rule: `category:${category} is not routed → default` };
  const [, tier] = entry;
  if (tier === DEFAULT_TIER) return { tier, rule: `category:${category} → default` };
  const known = Object.hasOwn(routing.tiers, tier) ? routing.tiers[tier] : undefined;
  if (!known) return { tier: DEFAULT_TIER, rule: `category:${category} → ${tier}, which is not a tier → default` };
  if (known.manualOnly) return { tier: DEFAULT_TIER, rule: `category:${category} → ${tier}, manual only → default` };
  return { tier, rule: `category:${category} → ${tier}` };
}
