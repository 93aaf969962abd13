/**
 * What each planning rule did in a backtest: how many issues or pairs it touched, how many waves
 * it cost, how many true conflicts it alone prevented. The rules: root files (issues touching
 * them conflict with one another), the two that make an issue run alone (a configured serial
 * glob, a hub), the three conflict kinds (path, import within the contention depth, dependency),
 * and the two buckets that keep an issue out of the waves (subdivide, triage).
 *
 * - **Waves cost**: the plan re-partitioned with that rule switched off, and everything else
 *   as it was — the same conflicts, serial flags, dependencies and wave size, the same partition
 *   algorithm — minus the waves of the plan: the waves it cost (negative when it saved some).
 *   Switching subdivide off re-plans with its limits lifted, so the issues it set aside join the
 *   waves; triage cannot be switched off (the planner knows nothing of those issues).
 * - **Alone prevented**: the true conflicts it kept apart that no other rule would have: pairs
 *   for which it is the only separating rule, with each issue's every serial rule counted (not
 *   only the first that matched) and the conflicts of subdivided issues taken from the plan with
 *   the limits lifted. Pure.
 */
import { DEFAULT_TIER, routeTier } from '../classify/route-tier.js';
import type { PlanAnalysis } from '../plan.js';
import { matchHub } from '../scope/hub-paths.js';
import { rootFilePairs } from '../conflicts/find-conflicts.js';
import { matchSerial } from '../scope/serial-paths.js';
import type { IssueNumber, RepoGraph } from '../types.js';
import { partitionWaves } from '../waves/partition-waves.js';
import { pairKey, type TrueConflict } from './true-conflicts.js';

export const RULE_IDS = ['root-files', 'serial-config', 'hub', 'import', 'path', 'dependency', 'subdivide', 'triage'] as const;
export type RuleId = (typeof RULE_IDS)[number];
type SerialRule = Extract<RuleId, 'serial-config' | 'hub'>;
type PairRule = Extract<RuleId, 'root-files' | 'path' | 'import'>;

export interface RuleEffect {
  rule: RuleId;
  /** For people: `root files`, `import at depth 1`… */
  label: string;
  /** Issues it applied to (root files, serial rules, subdivide, triage); null for the pair rules. */
  issues: number | null;
  /** Conflicting pairs of dispatchable issues it found (root files, path, import, dependency); null for the others. */
  pairs: number | null;
  /** True conflicts it kept apart, alone or with other rules. */
  truePairs: number;
  /** The plan's waves minus the waves without it; null when it cannot be switched off. */
  wavesCost: number | null;
  /** The waves of the plan re-partitioned without it; null when it cannot be switched off. */
  wavesWithout: number | null;
  /** True conflicts it kept apart that no other rule would have. */
  alonePrevented: number;
}

export interface RuleEffectsInput {
  /** The plan as made. */
  analysis: PlanAnalysis;
  /** The same backlog planned with the subdivide limits lifted (`analysis` itself when nothing was subdivided). */
  lifted: PlanAnalysis;
  graph: RepoGraph;
  truth: readonly TrueConflict[];
}

function ruleLabel(rule: RuleId, contentionDepth: number): string {
  switch (rule) {
    case 'root-files':
      return 'root files';
    case 'serial-config':
      return 'serial config glob';
    case 'import':
      return contentionDepth > 0 ? `import at depth ${contentionDepth}` : 'import (contention depth 0: off)';
    default:
      return rule;
  }
}

/** Every serial rule an issue's scope matches — not only the first, as the plan records. */
function serialRulesOf(analysis: PlanAnalysis, graph: RepoGraph, number: IssueNumber): Set<SerialRule> {
  const rules = new Set<SerialRule>();
  const scope = analysis.scopes.get(number);
  if (!scope) return rules;
  const { options, tree } = analysis;
  for (const leaf of scope.leaves) {
    if (options.serial.length > 0 && matchSerial(leaf, tree, options.serial, [])) rules.add('serial-config');
    if (matchHub(leaf, tree, graph, options)) rules.add('hub');
  }
  return rules;
}

interface Variant {
  /** A pair rule left out. */
  drop?: PairRule;
  /** Dependencies left out. */
  noPrecedence?: boolean;
  /** A serial rule left out. */
  serialOff?: SerialRule;
}

/** The number of waves of the analysis's dispatchable issues, partitioned as `analyzePlan` does, with one rule off. */
/**
 * The conflicting pairs of the analysis's dispatchable issues, by the rule that finds them. A pair
 * two rules find is in both sets (a same path between two issues touching root files, say), so
 * that switching one rule off leaves what the other finds.
 */
function pairsByRule(analysis: PlanAnalysis): Record<PairRule, Set<string>> {
  const dispatchable = new Set(analysis.units.map((u) => u.number));
  const out: Record<PairRule, Set<string>> = { 'root-files': new Set(), path: new Set(), import: new Set() };
  for (const c of analysis.conflicts) {
    if (!dispatchable.has(c.a) || !dispatchable.has(c.b)) continue;
    if (c.kind === 'import') out.import.add(pairKey(c.a, c.b));
    else if (c.kind === 'path' && c.rule !== 'root-files') out.path.add(pairKey(c.a, c.b));
  }
  for (const [a, b] of rootFilePairs(analysis.units)) out['root-files'].add(pairKey(a, b));
  return out;
}

function wavesWith(analysis: PlanAnalysis, serialRules: ReadonlyMap<IssueNumber, ReadonlySet<SerialRule>>, variant: Variant): number {
  const { units, options } = analysis;
  const index = new Map(units.map((unit, i) => [unit.number, i]));
  const byRule = pairsByRule(analysis);
  const keys = new Set<string>();
  for (const rule of ['root-files', 'path', 'import'] as const) if (rule !== variant.drop) for (const key of byRule[rule]) keys.add(key);
  const conflicts = [...keys].map((key) => {
    const [a, b] = key.split(':').map(Number);
    return [index.get(a!)!, index.get(b!)!] as const;
  });
  const precedences = variant.noPrecedence
    ? []
    : units.flatMap((unit) => unit.dependsOn.filter((dep) => index.has(dep)).map((dep) => [index.get(dep)!, index.get(unit.number)!] as const));
  const serial = units.map((unit) => {
    if (unit.serial === null) return false;
    const rules = serialRules.get(unit.number);
    // A serial match none of the three rules explains (a rule this measure does not know) stays.
    if (!variant.serialOff || !rules || rules.size === 0) return true;
    return [...rules].some((rule) => rule !== variant.serialOff);
  });
  const nonDefault = units.map((unit) => routeTier(analysis.scopes.get(unit.number)?.category ?? null, options.routing).tier !== DEFAULT_TIER);
  return partitionWaves({
    size: units.length,
    conflicts,
    precedences,
    serial,
    nonDefault,
    maxNonDefaultPerWave: options.routing?.maxNonDefaultConcurrent ?? Number.POSITIVE_INFINITY,
    waveSize: options.waveSize,
    exactLimit: options.exactLimit,
    searchBudget: options.searchBudget,
  }).waves.length;
}

export function measureRuleEffects({ analysis, lifted, graph, truth }: RuleEffectsInput): RuleEffect[] {
  const serialRules = new Map<IssueNumber, Set<SerialRule>>();
  for (const issue of analysis.selected) serialRules.set(issue.number, serialRulesOf(analysis, graph, issue.number));
  const bucketOf = (n: IssueNumber) => analysis.buckets.get(n)?.bucket;
  const dispatchable = new Set(analysis.units.map((u) => u.number));
  const liftedDispatchable = new Set(lifted.units.map((u) => u.number));

  // Which rules keep each truly conflicting pair apart.
  const liftedKinds = new Map<string, Set<RuleId>>();
  const addKind = (key: string, rule: RuleId) => {
    let kinds = liftedKinds.get(key);
    if (!kinds) liftedKinds.set(key, (kinds = new Set()));
    kinds.add(rule);
  };
  for (const c of lifted.conflicts) if (c.kind === 'dependency') addKind(pairKey(c.a, c.b), 'dependency');
  for (const [rule, keys] of Object.entries(pairsByRule(lifted)) as [PairRule, Set<string>][]) for (const key of keys) addKind(key, rule);
  const separators = (pair: TrueConflict): Set<RuleId> => {
    const rules = new Set<RuleId>(liftedKinds.get(pairKey(pair.a, pair.b)) ?? []);
    for (const n of [pair.a, pair.b]) {
      const bucket = bucketOf(n);
      if (bucket === 'triage') rules.add('triage');
      else if (bucket === 'subdivide') rules.add('subdivide');
      else if (bucket === 'deferred') rules.add('dependency');
      if (liftedDispatchable.has(n)) for (const rule of serialRules.get(n) ?? []) rules.add(rule);
    }
    return rules;
  };
  const truePairs = new Map<RuleId, number>(RULE_IDS.map((rule) => [rule, 0]));
  const alone = new Map<RuleId, number>(RULE_IDS.map((rule) => [rule, 0]));
  for (const pair of truth) {
    const rules = separators(pair);
    for (const rule of rules) truePairs.set(rule, truePairs.get(rule)! + 1);
    if (rules.size === 1) {
      const [only] = rules;
      alone.set(only!, alone.get(only!)! + 1);
    }
  }

  const waves = wavesWith(analysis, serialRules, {});
  // The re-partitions are only comparable if the rebuilt problem is the plan's own.
  if (waves !== analysis.plan.waves.length) throw new Error(`backtest: the plan's partition rebuilt gives ${waves} waves, the plan ${analysis.plan.waves.length}`);
  const byRule = pairsByRule(analysis);
  const pairsOf = (rule: PairRule | 'dependency') =>
    rule === 'dependency' ? analysis.conflicts.filter((c) => c.kind === 'dependency' && dispatchable.has(c.a) && dispatchable.has(c.b)).length : byRule[rule].size;
  const serialIssues = (rule: SerialRule) => analysis.units.filter((u) => u.serial !== null && serialRules.get(u.number)?.has(rule)).length;
  const without = (rule: RuleId): number | null => {
    switch (rule) {
      case 'serial-config':
      case 'hub':
        return wavesWith(analysis, serialRules, { serialOff: rule });
      case 'root-files':
      case 'import':
      case 'path':
        return wavesWith(analysis, serialRules, { drop: rule });
      case 'dependency':
        return wavesWith(analysis, serialRules, { noPrecedence: true });
      case 'subdivide':
        return lifted === analysis ? waves : wavesWith(lifted, serialRules, {});
      case 'triage':
        return null;
    }
  };
  const countOf = (rule: RuleId): { issues: number | null; pairs: number | null } => {
    switch (rule) {
      case 'serial-config':
      case 'hub':
        return { issues: serialIssues(rule), pairs: null };
      case 'root-files':
        return { issues: analysis.units.filter((u) => u.rootFiles.length > 0).length, pairs: pairsOf(rule) };
      case 'import':
      case 'path':
      case 'dependency':
        return { issues: null, pairs: pairsOf(rule) };
      case 'subdivide':
      case 'triage':
        return { issues: analysis.selected.filter((issue) => bucketOf(issue.number) === rule).length, pairs: null };
    }
  };
  return RULE_IDS.map((rule) => {
    const wavesWithout = without(rule);
    return {
      rule,
      label: ruleLabel(rule, analysis.options.contentionDepth),
      ...countOf(rule),
      truePairs: truePairs.get(rule)!,
      wavesCost: wavesWithout === null ? null : waves - wavesWithout,
      wavesWithout,
      alonePrevented: alone.get(rule)!,
    };
  });
}
