/**
 * Turns a plan into the exact commands that would start one coding agent per issue: the argv of
 * each agent (and of `git worktree add` when agents get worktrees), the model chosen by routing,
 * and the worker prompt. Pure: nothing is started, written or leased here.
 */
import path from 'node:path';
import { fenceWithCompanions, globMatcher, type BacklogIssue, type Plan, type PlanIssue } from '@waves/planner';
import { renderCommand, type AgentTemplate } from './agents/agent-command.js';
import { validateTemplate } from './agents/template-rule.js';
import type { RoutingConfig } from './config-schema.js';
import { renderPrompt } from './prompt/render-prompt.js';
import { shellQuote } from './shell-quote.js';

export interface DispatchOptions {
  agent: AgentTemplate;
  routing?: RoutingConfig | undefined;
  /** `--model`: one model for the whole run, overriding routing. */
  modelOverride?: string | null;
  promptTemplate: string;
  /** Verification commands as argv templates ({paths}, {packages}). */
  verify?: readonly (readonly string[])[] | undefined;
  /** Issue bodies, by number (the plan holds titles only). */
  issues: ReadonlyMap<number, BacklogIssue>;
  /** Root files and configured serial globs, for the prompt's "never touch". */
  protectedPaths: readonly string[];
  /** How a worker asks to widen its fence, shell-quoted (the prompt's `{widen}`); default `waves fence check`. */
  fenceCheck?: string;
  /** Workspace package names of a set of paths, for {packages}. */
  packagesOf: (paths: readonly string[]) => string[];
  worktree?: { base: string; dir: string } | null;
  /** The root, absolute: what `{cwd}` is made from (default: the worktree's relative path, or `.`). */
  root?: string;
  /** The commands run in each worktree before its agent starts (`worktree.setup`, or the lockfile's default). */
  setup?: readonly (readonly string[])[];
  /** Wave indexes to render (1-based); default: the first. */
  waves?: readonly number[] | 'all';
}

export interface WorktreeCommand {
  path: string;
  branch: string;
  argv: string[];
}

export interface IssueDispatch {
  number: number;
  title: string;
  tier: string;
  /** Why this model: routing, or the --model override. */
  modelRule: string;
  model: string | null;
  /** The agent's argv. */
  command: string[];
  cwd: string | null;
  worktree: WorktreeCommand | null;
  /** Commands run in the worktree before the agent starts (none without a worktree). */
  setup: string[][];
  /** Variables set for the agent besides waves' environment (opencode's per-run permissions). */
  env: Record<string, string>;
  prompt: string;
}

export interface WaveDispatch {
  index: number;
  kind: Plan['waves'][number]['kind'];
  issues: IssueDispatch[];
}

export function modelFor(issue: Pick<PlanIssue, 'tier'> & { tierRule?: string }, routing: RoutingConfig | undefined, override: string | null | undefined): { model: string | null; rule: string } {
  if (override) return { model: override, rule: `--model ${override} for the whole run (routing not used)` };
  const tier = routing && Object.hasOwn(routing.tiers, issue.tier) ? routing.tiers[issue.tier] : undefined;
  const rule = issue.tierRule ?? `tier ${issue.tier}`;
  if (!tier) return { model: null, rule: `${rule}; no model configured: the agent's own default` };
  return { model: tier.model, rule: `${rule} → ${tier.model}` };
}

/** The workspace packages (by name) holding any of the paths (`dir/` paths included). */
export function packagesOfPaths(packages: readonly { name: string; dir: string }[], paths: readonly string[]): string[] {
  const inside = (dir: string, p: string) => dir !== '' && (p === dir || p.startsWith(`${dir}/`));
  return [...new Set(paths.flatMap((p) => packages.filter((pkg) => inside(pkg.dir, p)).map((pkg) => pkg.name)))].sort();
}

/**
 * A verification command for one issue: an element that is exactly `{paths}` or `{packages}`
 * becomes one argument per path or package; inside a longer element they are comma-joined.
 */
export function renderVerify(argv: readonly string[], paths: readonly string[], packages: readonly string[]): string[] {
  return argv.flatMap((element) => {
    if (element === '{paths}') return [...paths];
    if (element === '{packages}') return [...packages];
    return [element.replace(/\{paths\}/g, paths.join(',')).replace(/\{packages\}/g, packages.join(','))];
  });
}

/** The branch an issue's runs work on, in worktrees. */
export const runBranchOf = (issue: number) => `waves/issue-${issue}`;

/** The dispatch of one issue of the plan (any wave): its agent argv, worktree, model and prompt. */
export function buildIssueDispatch(plan: Plan, issue: PlanIssue, options: DispatchOptions): IssueDispatch {
  const backlog = options.issues.get(issue.number);
  const { model, rule } = modelFor(issue, options.routing, options.modelOverride);
  const branch = runBranchOf(issue.number);
  const worktreePath = options.worktree ? path.posix.join(options.worktree.dir, `issue-${issue.number}`) : null;
  const worktree = options.worktree && worktreePath ? { path: worktreePath, branch, argv: ['git', 'worktree', 'add', '--no-track', '-b', branch, worktreePath, options.worktree.base] } : null;
  const others = plan.waves.flatMap((w) => w.issues).filter((o) => o.number !== issue.number).flatMap((o) => o.paths.map((p) => `${p} (#${o.number})`));
  // A root file the issue's own fence holds (a serial issue's package.json, and the lockfile it brings) is not forbidden to it.
  const allowed = fenceWithCompanions(issue.paths);
  const protectedPaths = options.protectedPaths.filter((pattern) => !allowed.some((p) => globMatcher(pattern)(p)));
  const packages = options.packagesOf(issue.paths);
  const verify = (options.verify ?? []).map((argv) => shellQuote(renderVerify(argv, issue.paths, packages)));
  const prompt = renderPrompt(options.promptTemplate, {
    number: issue.number,
    title: issue.title,
    body: backlog?.body ?? '',
    url: issue.url,
    lanes: issue.lanes,
    fence: issue.paths,
    forbidden: [...protectedPaths, ...others],
    verify,
    tier: issue.tier,
    model,
    ...(options.fenceCheck ? { fenceCheck: options.fenceCheck } : {}),
    inferred: issue.inferred === true ? (issue.candidates ?? []).map((c) => ({ path: c.path, confidence: c.confidence, kinds: [...new Set(c.evidence.map((e) => e.kind))] })) : null,
  });
  const command = renderCommand(options.agent, {
    number: String(issue.number),
    title: issue.title,
    prompt,
    model: model ?? '',
    lane: issue.lanes.join(','),
    paths: issue.paths.join(' '),
    worktree: worktree?.path ?? '',
    branch,
    cwd: options.root ? path.join(options.root, worktree?.path ?? '') : (worktree?.path ?? '.'),
  });
  const setup = worktree ? (options.setup ?? []).map((argv) => [...argv]) : [];
  return { number: issue.number, title: issue.title, tier: issue.tier, modelRule: rule, model, command, cwd: worktree?.path ?? null, worktree, setup, env: { ...(options.agent.environment ?? {}) }, prompt };
}

export function buildDispatch(plan: Plan, options: DispatchOptions): WaveDispatch[] {
  validateTemplate(options.agent);
  const wanted = options.waves ?? [1];
  const selected = wanted === 'all' ? plan.waves : plan.waves.filter((w) => wanted.includes(w.index));
  return selected.map((wave) => ({ index: wave.index, kind: wave.kind, issues: wave.issues.map((issue) => buildIssueDispatch(plan, issue, options)) }));
}
