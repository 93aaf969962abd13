/**
 * What `waves plan`, `waves explain` (and the dispatch commands) share: the flags that choose
 * the backlog, the repository and the planner options, and the reading of all of them into a
 * `PlanInput` — config file first, then flags over it.
 */
import path from 'node:path';
import { MAX_TOP } from '@waves/planner';
import { execaGit } from '@waves/planner';
import { checkGitTrust, defaultHolder, LeaseRemoteError, parseDuration, tokensOf, type LeaseStore } from '@waves/dispatch';
import { ConfigError, loadRepo, SAFE_GIT_CONFIG, type BacklogIssue, type PlanInput, type PlanOptionsInput, type RepoIndex } from '@waves/planner';
import { enumFlag, fractionFlag, intFlag, stringFlag, type FlagSpecs, type ParsedArgs } from '../args.js';
import { configPath } from '../config/config-paths.js';
import { configuredLeases } from '../config/lease-store.js';
import { checkApiUrlFlag, DEFAULT_API_TIMEOUT_MS, resolveApiUrl } from '../sources/api-url.js';
import { isRepoSlug, REPO_SLUG_HINT } from '../sources/repo-slug.js';
import { loadConfig, planOptionsFromConfig, type LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { safeText } from '../render/safe-text.js';
import type { CliIo } from '../io.js';
import { repoFromRemote } from '../sources/github-remote.js';
import { readIssuesFile } from '../sources/issues-file.js';
import { rootFlag } from '../root-flag.js';

/** Scope inference for issues that name no files (plan, explain, dispatch, backtest). */
export const INFERENCE_FLAGS: FlagSpecs = {
  inference: {
    type: 'string',
    value: 'off|suggest|plan',
    description: 'Issues naming no files: suggest shows their likely files (candidates) and keeps them in triage; plan dispatches those whose best candidate passes the threshold, fenced to the inferred files',
    default: "the config's defaults.inference, else suggest",
  },
  'inference-threshold': {
    type: 'string',
    value: 'X',
    description: 'In plan mode, the confidence (0 to 1) the best candidate needs',
    default: "the config's defaults.inferenceThreshold, else 0.7",
  },
};

/** Applies --inference and --inference-threshold over the config's. */
export function applyInferenceFlags(values: ParsedArgs['values'], options: PlanOptionsInput): void {
  const mode = enumFlag(values, 'inference', ['off', 'suggest', 'plan'] as const);
  const threshold = fractionFlag(values, 'inference-threshold', 0, 1);
  if (mode !== undefined) options.inference = mode;
  if (threshold !== undefined) options.inferenceThreshold = threshold;
}

export const SOURCE_FLAGS: FlagSpecs = {
  'from-issues': { type: 'string', value: 'FILE', description: 'Read the backlog from a JSON file (gh issue list --json …); - reads stdin' },
  repo: { type: 'string', value: 'OWNER/NAME', description: 'Read the backlog from this GitHub repository', default: 'the origin remote, when it is on GitHub' },
  'api-url': {
    type: 'string',
    value: 'URL',
    description: "GitHub API (Enterprise; plain http only to 127.0.0.1, ::1, localhost); also GITHUB_API_URL. Confirms a config's defaults.apiUrl",
    default: 'https://api.github.com',
  },
  'api-timeout': { type: 'string', value: 'DURATION', description: 'Longest wait for one GitHub answer (500ms, 30s, 2m); a timeout is retried like a 5xx', default: "the config's defaults.apiTimeout, else 30s" },
  label: { type: 'string', multiple: true, value: 'L', description: 'Only issues with this label (repeatable: all must match)' },
  milestone: { type: 'string', value: 'M', description: 'Only issues of this milestone (title or number)' },
  assignee: { type: 'string', value: 'A', description: 'Only issues assigned to this login' },
  root: { type: 'string', value: 'DIR', description: 'Repository to plan against', default: 'the current directory' },
  config: { type: 'string', value: 'FILE', description: 'Config file', default: 'waves.config.json at the root, if any' },
  top: { type: 'string', value: 'N', description: 'Evaluate the N highest-ranked open issues', default: '10' },
  'wave-size': { type: 'string', value: 'N', description: 'Most issues in one wave', default: '4' },
  'max-waves': { type: 'string', value: 'N', description: 'Waves to plan; later ones go to deferred', default: '2' },
  granularity: { type: 'string', value: 'file|dir|package', description: 'Roll paths up to this before comparing them', default: 'file' },
  'contention-depth': { type: 'string', value: 'N', description: 'Import hops that make two issues conflict (0 = off)', default: '1' },
  ...INFERENCE_FLAGS,
  'no-cache': { type: 'boolean', description: 'Ignore and do not write the import-graph cache under .waves/cache/' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export interface LoadedPlanInput {
  input: PlanInput;
  config: LoadedConfig;
  root: string;
  /** The whole backlog read (for explain: issues outside the selection). */
  backlog: BacklogIssue[];
  source: string;
  /** The issues file read, as a path from the working directory (null: standard input or GitHub). */
  issuesFile: string | null;
  /** The GitHub repository read, when the backlog came from GitHub (compare reads more of it). */
  github: { repo: string; apiUrl: string | undefined; token: string | undefined; timeoutMs: number } | null;
  /** The lease journal, the store the config chooses, and who this orchestrator is in it. */
  journal: string;
  leaseStore: LeaseStore;
  holder: string;
  /**
   * Why the leases could not be read (the git backend's remote did not answer), or null: the plan
   * was then made as if nothing were held, and `held` is unknown. Dispatch refuses to start.
   */
  leasesUnknown: string | null;
}

/** One warning line per file the graph build refused to read: never skipped silently. */
export function warnSkipped(repo: RepoIndex, io: CliIo): void {
  for (const { file, reason } of repo.graph.getAttribute('skipped') ?? []) io.stderr(`waves: skipped ${safeText(file)}: ${reason}\n`);
}

/** The longest `--api-timeout`: AbortSignal.timeout takes at most 2^31-1 ms, and an hour is patience enough. */
const MAX_API_TIMEOUT_MS = 3_600_000;

function apiTimeoutMs(flag: string | undefined, fromConfig: string | undefined): number {
  const text = flag ?? fromConfig;
  if (text === undefined) return DEFAULT_API_TIMEOUT_MS;
  const ms = parseDuration(text);
  if (ms === null || ms > MAX_API_TIMEOUT_MS) {
    const problem = `expected a duration from 1ms to 1h such as 30s, 2m or 500ms, got ${JSON.stringify(text)}`;
    throw flag !== undefined ? new UsageError(`--api-timeout: ${problem}`) : new ConfigError(`config defaults.apiTimeout: ${problem}`);
  }
  return ms;
}

async function originRepo(root: string): Promise<string | null> {
  const result = await execaGit([...SAFE_GIT_CONFIG, 'remote', 'get-url', 'origin'], { cwd: root, reject: false, stdin: 'ignore' }).catch(() => null);
  return result && result.exitCode === 0 ? result.stdout.trim() : null;
}

export async function loadPlanInput(values: ParsedArgs['values'], io: CliIo, access: { writeCache: boolean } = { writeCache: true }): Promise<LoadedPlanInput> {
  // Flags that are wrong whatever the source: exit 2 before anything is read.
  checkApiUrlFlag(stringFlag(values, 'api-url'));
  if (stringFlag(values, 'api-timeout') !== undefined) apiTimeoutMs(stringFlag(values, 'api-timeout'), undefined);
  const repoFlag = stringFlag(values, 'repo');
  if (repoFlag !== undefined && !isRepoSlug(repoFlag)) throw new UsageError(`--repo ${JSON.stringify(repoFlag)}: ${REPO_SLUG_HINT}`);
  const { root, rootArg } = await rootFlag(values, io);
  const config = await loadConfig(root, stringFlag(values, 'config'), io.cwd);
  // Before any git command: git would run a program an agent planted in its config.
  await checkGitTrust(root, io.now(), { record: access.writeCache });
  const defaults = config.config.defaults ?? {};

  const options: PlanOptionsInput = planOptionsFromConfig(config.config);
  const top = intFlag(values, 'top', 1, MAX_TOP);
  const waveSize = intFlag(values, 'wave-size', 1);
  const maxWaves = intFlag(values, 'max-waves', 1);
  const depth = intFlag(values, 'contention-depth', 0);
  const granularity = enumFlag(values, 'granularity', ['file', 'dir', 'package'] as const);
  if (depth !== undefined && depth > 8) throw new UsageError(`--contention-depth: expected at most 8, got ${depth}`);
  if (top !== undefined) options.top = top;
  if (waveSize !== undefined) options.waveSize = waveSize;
  if (maxWaves !== undefined) options.maxWaves = maxWaves;
  if (depth !== undefined) options.contentionDepth = depth;
  if (granularity !== undefined) options.granularity = granularity;
  applyInferenceFlags(values, options);

  // The backlog: an issues file, or GitHub (--repo, the config's default, or the origin remote).
  const fromIssues = stringFlag(values, 'from-issues') ?? (stringFlag(values, 'repo') === undefined ? defaults.fromIssues : undefined);
  const labels = (values.label as string[] | undefined) ?? defaults.label ?? [];
  const milestone = stringFlag(values, 'milestone') ?? defaults.milestone;
  const assignee = stringFlag(values, 'assignee') ?? defaults.assignee;
  let backlog: BacklogIssue[];
  let source: string;
  let issuesFile: string | null = null;
  let github: LoadedPlanInput['github'] = null;
  if (fromIssues !== undefined) {
    if (stringFlag(values, 'repo') !== undefined) throw new UsageError('--from-issues and --repo name two backlogs; use one');
    const fromConfig = values['from-issues'] === undefined && fromIssues !== '-';
    const file = fromConfig ? await configPath(config, root, 'defaults.fromIssues', fromIssues) : fromIssues;
    backlog = await readIssuesFile(file, io, { fromConfig, shown: fromIssues });
    source = fromIssues === '-' ? 'standard input' : fromIssues;
    if (fromIssues !== '-') issuesFile = path.resolve(io.cwd, file);
    const filtered = backlog.filter(
      (i) => labels.every((l) => i.labels.some((x) => x.toLowerCase() === l.toLowerCase())),
    );
    if (milestone !== undefined || assignee !== undefined) {
      throw new UsageError('--milestone and --assignee filter GitHub issues; an issues file holds neither');
    }
    backlog = filtered;
  } else {
    // Where requests (and the token) may go: see sources/api-url.ts.
    const apiUrl = resolveApiUrl({ flag: stringFlag(values, 'api-url'), env: io.env.GITHUB_API_URL, config: defaults.apiUrl, configFile: config.shown });
    const timeoutMs = apiTimeoutMs(stringFlag(values, 'api-timeout'), defaults.apiTimeout);
    let repo = stringFlag(values, 'repo') ?? defaults.repo;
    if (repo === undefined) {
      const remote = await originRepo(root);
      const fromRemote = remote ? repoFromRemote(remote, apiUrl !== undefined) : null;
      repo = fromRemote !== null && isRepoSlug(fromRemote) ? fromRemote : undefined;
      if (repo === undefined) {
        throw new UsageError(
          remote
            ? `no issue source: the origin remote (${remote.replace(/\/\/[^@/]*@/, '//')}) is not a GitHub repository; pass --repo OWNER/NAME or --from-issues FILE`
            : 'no issue source: pass --from-issues FILE, or --repo OWNER/NAME (or run inside a clone whose origin is on GitHub)',
        );
      }
    }
    // In io.env for a command run in-process; held in memory once the bin took them (token-holder.ts).
    const tokens = tokensOf(io.env);
    const token = tokens.GITHUB_TOKEN || tokens.GH_TOKEN || undefined;
    // A header cannot carry it: retried as a network fault for 14 s, then "unreachable" (red team L10).
    if (token !== undefined && /[^\x21-\x7e]/.test(token)) {
      throw new UsageError(`${tokens.GITHUB_TOKEN ? 'GITHUB_TOKEN' : 'GH_TOKEN'} holds a space, a line break or another character no token has: check how it was set`);
    }
    // The GitHub client loads only when GitHub is the source.
    const { readGithubBacklog } = await import('../sources/github.js');
    const result = await readGithubBacklog({
      repo,
      top: options.top ?? 10,
      token,
      apiUrl,
      timeoutMs,
      labels,
      milestone,
      assignee,
      priorityLabels: options.priorityLabels ?? {},
      warn: (message) => io.stderr(`waves: ${message}\n`),
      ...(io.stderrIsTTY ? { progress: (message: string) => io.stderr(`\rwaves: GitHub: ${message}`) } : {}),
    });
    if (io.stderrIsTTY) io.stderr('\n');
    backlog = result.issues;
    source = `github:${repo}`;
    github = { repo, apiUrl, token, timeoutMs };
    options.repoSlug ??= repo;
  }

  const progress = io.stderrIsTTY
    ? (done: number, total: number) => io.stderr(`\rwaves: reading imports ${done}/${total}${done === total ? '\n' : ''}`)
    : undefined;
  // The leases of every orchestrator: an issue whose scope another holder leases is held.
  const { journal, store: leaseStore, backend } = await configuredLeases(config, root, () => io.now());
  let leasesUnknown: string | null = null;
  const { leases, warnings } = await backend.list().catch((error: unknown) => {
    // Fail closed: a remote that does not answer holds nothing back silently — the plan says so.
    if (!(error instanceof LeaseRemoteError)) throw error;
    leasesUnknown = error.message.split('\n')[0] ?? 'the remote did not answer';
    io.stderr(`waves: could not read the remote leases (${safeText(leasesUnknown)}): held is unknown, planned as if nothing were held\n`);
    return { leases: [], warnings: [] as string[] };
  });
  for (const warning of warnings) io.stderr(`waves: ${safeText(warning)}\n`);
  const holder = config.config.leases?.holder ?? defaultHolder();
  options.holder ??= holder;

  // With inference off nothing reads the files' words: the scan does not count them.
  const repoIndex = await loadRepo(root, {
    displayRoot: rootArg ?? '.',
    cache: values['no-cache'] ? false : access.writeCache ? true : 'read-only',
    ...(options.inference === 'off' ? { words: false } : {}),
    ...(progress ? { onProgress: progress } : {}),
  });
  warnSkipped(repoIndex, io);
  return { input: { issues: backlog, repo: repoIndex, options, leases, now: io.now() }, config, root, backlog, source, issuesFile, github, journal, leaseStore, holder, leasesUnknown };
}
