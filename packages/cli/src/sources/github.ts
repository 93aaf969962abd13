/**
 * Issue source: a GitHub repository, through octokit (pagination, retries with backoff on 5xx
 * and network resets, primary and secondary rate limits honoured).
 *
 * Bounded requests: the backlog is ranked by priority label, then age. So the repository's
 * labels are read first, and the open issues are read tier by tier — the issues of each priority
 * label, oldest first, page by page — stopping as soon as `top` issues are certain; only then,
 * if needed, the issues without a priority label. Dependencies of the selected issues that were
 * not read are fetched one by one, to tell an open one (the dependent waits) from a closed one.
 */
import { Octokit } from 'octokit';
import { InputError, labelRank, parseIssues, rankIssues, WavesError, type BacklogIssue } from '@waves/planner';
import { extractMentions } from '@waves/planner';

export interface GithubSourceOptions {
  repo: string;
  top: number;
  token: string | undefined;
  apiUrl: string | undefined;
  labels: readonly string[];
  milestone: string | undefined;
  assignee: string | undefined;
  priorityLabels: Readonly<Record<string, number>>;
  /** Longest a rate limit may make us wait, in seconds, before giving up. */
  maxWaitSeconds?: number;
  /** Retries of a failing request (5xx, network). */
  retries?: number;
  warn: (message: string) => void;
  progress?: (message: string) => void;
}

export interface GithubBacklog {
  issues: BacklogIssue[];
  requests: number;
}

const PER_PAGE = 100;

export { repoFromRemote } from './github-remote.js';

function splitRepo(repo: string): { owner: string; name: string } {
  const match = /^([\w.-]+)\/([\w.-]+)$/.exec(repo);
  if (!match) throw new InputError(`--repo ${JSON.stringify(repo)}: expected owner/name`);
  return { owner: match[1]!, name: match[2]! };
}

function describeFailure(error: unknown, repo: string): Error {
  const status = (error as { status?: number }).status;
  if (status === 401) return new InputError('GitHub rejected the token (401): check GITHUB_TOKEN or GH_TOKEN');
  if (status === 404) return new InputError(`repository ${repo} not found or not visible with this token (404)`);
  if (status === 403 || status === 429) return new WavesError(`GitHub refused the request (${status}): rate limit exhausted or access forbidden`);
  const message = (error as Error).message?.split('\n')[0] ?? String(error);
  return new WavesError(`GitHub API failed${status ? ` (${status})` : ''}: ${message}`);
}

export function createOctokit(options: Pick<GithubSourceOptions, 'token' | 'apiUrl' | 'maxWaitSeconds' | 'retries' | 'warn'>): Octokit {
  const maxWait = options.maxWaitSeconds ?? 120;
  const retries = options.retries ?? 3;
  const onLimit = (kind: string) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    if (retryAfter > maxWait) {
      options.warn(`GitHub ${kind} rate limit: it asks to wait ${retryAfter} s, more than the ${maxWait} s allowed; giving up`);
      return false;
    }
    if (retryCount >= retries) return false;
    options.warn(`GitHub ${kind} rate limit on ${request.method} ${request.url}: waiting ${retryAfter} s (retry ${retryCount + 1} of ${retries})`);
    return true;
  };
  return new Octokit({
    ...(options.token ? { auth: options.token } : {}),
    ...(options.apiUrl ? { baseUrl: options.apiUrl.replace(/\/+$/, '') } : {}),
    userAgent: 'waves-cli',
    throttle: { onRateLimit: onLimit('primary'), onSecondaryRateLimit: onLimit('secondary') },
    retry: { retries },
    // Silence octokit's own console logging: waves reports on stderr itself.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

/** Reads the open issues of a repository needed to plan the top `top` (see the file header). */
export async function readGithubBacklog(options: GithubSourceOptions): Promise<GithubBacklog> {
  const { owner, name } = splitRepo(options.repo);
  const octokit = createOctokit(options);
  let requests = 0;
  const count = <T>(promise: Promise<T>): Promise<T> => {
    requests++;
    return promise;
  };

  try {
    let milestone: string | undefined;
    if (options.milestone !== undefined) {
      if (/^\d+$/.test(options.milestone) || options.milestone === '*' || options.milestone === 'none') milestone = options.milestone;
      else {
        const all = await octokit.paginate(octokit.rest.issues.listMilestones, { owner, repo: name, state: 'all', per_page: PER_PAGE });
        requests += Math.max(1, Math.ceil(all.length / PER_PAGE));
        const found = all.find((m) => m.title === options.milestone);
        if (!found) throw new InputError(`--milestone ${JSON.stringify(options.milestone)}: no such milestone in ${options.repo}`);
        milestone = String(found.number);
      }
    }

    // Which of the repository's labels give a priority, and which rank.
    const repoLabels = await octokit.paginate(octokit.rest.issues.listLabelsForRepo, { owner, repo: name, per_page: PER_PAGE });
    requests += Math.max(1, Math.ceil(repoLabels.length / PER_PAGE));
    const tiers = new Map<number, string[]>();
    for (const label of repoLabels) {
      const rank = labelRank(label.name, options.priorityLabels);
      if (rank !== null) tiers.set(rank, [...(tiers.get(rank) ?? []), label.name]);
    }

    const read = new Map<number, unknown>();
    const filters = { owner, repo: name, state: 'open' as const, sort: 'created' as const, direction: 'asc' as const, per_page: PER_PAGE, ...(milestone ? { milestone } : {}), ...(options.assignee ? { assignee: options.assignee } : {}) };
    let pages = 0;
    /** Reads issues with the given labels, oldest first, until `enough` of them are issues (not pull requests). */
    const readTier = async (labels: string[], enough: number): Promise<number> => {
      let found = 0;
      for await (const page of octokit.paginate.iterator(octokit.rest.issues.listForRepo, { ...filters, ...(labels.length > 0 ? { labels: labels.join(',') } : {}) })) {
        requests++;
        pages++;
        options.progress?.(`read ${pages} page(s), ${read.size + page.data.length} item(s)`);
        for (const item of page.data) {
          if (!read.has(item.number)) read.set(item.number, item);
          if (!item.pull_request) found++;
        }
        if (found >= enough) break;
      }
      return found;
    };

    let certain = 0; // issues of fully read tiers
    for (const rank of [...tiers.keys()].sort((a, b) => a - b)) {
      if (certain >= options.top) break;
      // Every label of the tier, oldest first: the first `top` of each are enough to order the tier.
      for (const label of tiers.get(rank)!) await readTier([...options.labels, label], options.top);
      certain = parsedIssues(read).filter((i) => i.state === 'open').length;
    }
    if (certain < options.top) {
      // The issues without a priority label: all open issues, oldest first, skipping the prioritised.
      let unlabelled = 0;
      for await (const page of octokit.paginate.iterator(octokit.rest.issues.listForRepo, { ...filters, ...(options.labels.length > 0 ? { labels: options.labels.join(',') } : {}) })) {
        requests++;
        pages++;
        options.progress?.(`read ${pages} page(s), ${read.size} item(s)`);
        for (const item of page.data) {
          if (!read.has(item.number)) {
            read.set(item.number, item);
            if (!item.pull_request && !item.labels.some((l) => labelRank(typeof l === 'string' ? l : (l.name ?? ''), options.priorityLabels) !== null)) unlabelled++;
          }
        }
        if (certain + unlabelled >= options.top) break;
      }
    }

    // Dependencies of the selected issues that were not read: open or closed?
    const selected = rankIssues(parsedIssues(read), options.priorityLabels).slice(0, options.top);
    const missing = new Set<number>();
    for (const issue of selected) {
      for (const dep of extractMentions(issue.title, issue.body, { repoSlug: options.repo }).dependsOn) if (!read.has(dep)) missing.add(dep);
    }
    for (const number of [...missing].sort((a, b) => a - b)) {
      try {
        const { data } = await count(octokit.rest.issues.get({ owner, repo: name, issue_number: number }));
        read.set(number, data);
      } catch (error) {
        if ((error as { status?: number }).status !== 404 && (error as { status?: number }).status !== 410) throw error;
      }
    }
    return { issues: parsedIssues(read), requests };
  } catch (error) {
    if (error instanceof WavesError) throw error;
    throw describeFailure(error, options.repo);
  }
}

function parsedIssues(read: Map<number, unknown>): BacklogIssue[] {
  const parsed = parseIssues([...read.values()]);
  if (!parsed.ok) throw new WavesError(`GitHub sent an issue waves cannot read: ${parsed.problems[0]!.path}: ${parsed.problems[0]!.message}`);
  return parsed.value;
}

/**
 * For `waves compare`: the given issues, one by one (the state of each: a 404 or 410 means gone),
 * and the open issues created after `since`, newest first, stopping at the first older one.
 */
export async function readGithubChanges(
  options: Pick<GithubSourceOptions, 'repo' | 'token' | 'apiUrl' | 'maxWaitSeconds' | 'retries' | 'warn'>,
  numbers: readonly number[],
  since: string,
): Promise<BacklogIssue[]> {
  const { owner, name } = splitRepo(options.repo);
  const octokit = createOctokit(options);
  const read = new Map<number, unknown>();
  try {
    for (const number of numbers) {
      try {
        const { data } = await octokit.rest.issues.get({ owner, repo: name, issue_number: number });
        read.set(number, data);
      } catch (error) {
        if ((error as { status?: number }).status !== 404 && (error as { status?: number }).status !== 410) throw error;
      }
    }
    const after = Date.parse(since);
    pages: for await (const page of octokit.paginate.iterator(octokit.rest.issues.listForRepo, { owner, repo: name, state: 'open', sort: 'created', direction: 'desc', per_page: PER_PAGE })) {
      for (const item of page.data) {
        if (Date.parse(item.created_at) <= after) break pages;
        if (!read.has(item.number)) read.set(item.number, item);
      }
    }
    return parsedIssues(read);
  } catch (error) {
    if (error instanceof WavesError) throw error;
    throw describeFailure(error, options.repo);
  }
}
