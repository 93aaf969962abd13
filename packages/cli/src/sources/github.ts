/**
 * Issue source: a GitHub repository, through octokit (pagination, retries with backoff on 5xx
 * and network resets, primary and secondary rate limits honoured).
 *
 * Bounded requests: the backlog is ranked by priority label, then age. So the repository's
 * labels are read first, and the open issues are read tier by tier — the issues of each priority
 * label, oldest first, page by page — stopping as soon as `top` issues are certain; only then,
 * if needed, the issues without a priority label. Dependencies of the selected issues that were
 * not read are fetched one by one, to tell an open one (the dependent waits) from a closed one.
 *
 * Every request has a deadline (`timeoutMs`, the whole exchange) and counts as a network fault
 * when it passes; every answer is checked before it is read (`github-answers.ts`); a failure
 * ends as one line (`github-failure.ts`). Which host may be asked is decided before: `api-url.ts`.
 */
import { Octokit } from 'octokit';
import { extractMentions, InputError, isPullRequest, labelRank, parseIssues, rankIssues, WavesError, type BacklogIssue, type IssueRecord } from '@waves/planner';
import { apiHost, DEFAULT_API_TIMEOUT_MS, GITHUB_API } from './api-url.js';
import { checkAnswers, endpointOf, readIssue, readIssuesPage, readLabels, readMilestones } from './github-answers.js';
import { describeFailure, formatDuration } from './github-failure.js';
import { safeText } from '../render/safe-text.js';
import { DEFAULT_TOTAL_MS, fetchWithTimeout } from './github-fetch.js';
import { isRepoSlug, REPO_SLUG_HINT, splitRepoSlug } from './repo-slug.js';

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
  /** Retries of a failing request (5xx, network, timeout). */
  retries?: number;
  /** Longest wait for one answer, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Every GitHub read of the command together ends within this (default 15 minutes; `WAVES_GITHUB_TOTAL_MS` for tests). */
  totalMs?: number;
  warn: (message: string) => void;
  progress?: (message: string) => void;
}

export interface GithubBacklog {
  issues: BacklogIssue[];
  requests: number;
}

const PER_PAGE = 100;
const DEFAULT_RETRIES = 3;

export { repoFromRemote } from './github-remote.js';

function splitRepo(repo: string): { owner: string; name: string } {
  if (!isRepoSlug(repo)) throw new InputError(`repository ${JSON.stringify(repo)}: ${REPO_SLUG_HINT}`);
  return splitRepoSlug(repo);
}

type ClientOptions = Pick<GithubSourceOptions, 'repo' | 'token' | 'apiUrl' | 'maxWaitSeconds' | 'retries' | 'timeoutMs' | 'totalMs' | 'warn'>;

/** What a client learnt that explains its last failure better than the answer does. */
interface ClientState {
  /** Why a rate limit was not waited for: the failure's one line, instead of "refused (403)". */
  gaveUp: string | null;
}

const states = new WeakMap<Octokit, ClientState>();

/** Turns whatever a request threw into the one-line error of `describeFailure`. */
function failure(error: unknown, options: ClientOptions, octokit: Octokit): Error {
  if (error instanceof WavesError) return error;
  const status = (error as { status?: number }).status;
  const gaveUp = states.get(octokit)?.gaveUp;
  if (gaveUp && (status === 403 || status === 429)) return new WavesError(gaveUp);
  return describeFailure(error, {
    repo: options.repo,
    host: apiHost(options.apiUrl),
    timeoutMs: options.timeoutMs ?? DEFAULT_API_TIMEOUT_MS,
    attempts: (options.retries ?? DEFAULT_RETRIES) + 1,
  });
}

/**
 * Refuses, before it is sent, any request to another origin (scheme, host, port) than the API's:
 * octokit's pagination follows the `Link: rel="next"` URL an answer names, wherever it points,
 * with the token. Registered last, this hook runs first, outside octokit's retries.
 */
function keepToApiOrigin(octokit: Octokit, apiUrl: string | undefined): void {
  const api = new URL(apiUrl ?? GITHUB_API);
  octokit.hook.before('request', (request) => {
    const url = String(request.url ?? '');
    // NOTE: octokit expands URI templates after this (its routes are `/repos/{owner}/…`), and a
    // next-page link of `{x}http://other/` is `http://other/` by then: the fetch checks the URL it
    // is finally given against the API's origin too (github-fetch.ts).
    let target: URL;
    try {
      target = /^[a-z][a-z0-9+.-]*:/i.test(url) ? new URL(url) : new URL(`${String(request.baseUrl ?? api.href).replace(/\/+$/, '')}${url}`);
    } catch {
      throw new WavesError(`GitHub API at ${api.host}: a next-page link is not a URL; refused`);
    }
    if (target.username !== '' || target.password !== '') {
      throw new WavesError(`GitHub API at ${api.host}: a next-page link carries a user name or password; refused before sending`);
    }
    if (target.origin !== api.origin) {
      // A `file:` or `data:` URL has no origin ("null"): named by its scheme.
      const elsewhere = target.origin === 'null' ? `a ${target.protocol} URL` : `${target.origin}, another host`;
      throw new WavesError(`GitHub API at ${api.host}: a next-page link leads to ${safeText(elsewhere, 200)}; refused before sending (the token goes only to ${api.origin})`);
    }
  });
}

export function createOctokit(options: Omit<ClientOptions, 'repo'>): Octokit {
  const maxWait = options.maxWaitSeconds ?? 120;
  const retries = options.retries ?? DEFAULT_RETRIES;
  const state: ClientState = { gaveUp: null };
  const host = apiHost(options.apiUrl);
  // WAVES_GITHUB_TOTAL_MS: a shorter budget, for the tests of it.
  const fromEnv = Number(process.env.WAVES_GITHUB_TOTAL_MS);
  const totalMs = options.totalMs ?? (Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_TOTAL_MS);
  const deadlineAt = Date.now() + totalMs;
  const onLimit = (kind: string) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    if (retryAfter > maxWait) {
      // Said once, as the failure's own line (see `failure`).
      state.gaveUp = `GitHub ${kind} rate limit at ${host}: it asks to wait ${retryAfter} s, more than the ${maxWait} s allowed; giving up`;
      return false;
    }
    if (Date.now() + retryAfter * 1000 > deadlineAt) {
      state.gaveUp = `GitHub ${kind} rate limit at ${host}: waiting ${retryAfter} s more would take reading past ${formatDuration(totalMs)} in all; giving up`;
      return false;
    }
    if (retryCount >= retries) {
      state.gaveUp = `GitHub ${kind} rate limit at ${host}: still limited after ${retries} wait(s); giving up`;
      return false;
    }
    options.warn(`GitHub ${kind} rate limit on ${request.method} ${safeText(String(request.url), 300)}: waiting ${retryAfter} s (retry ${retryCount + 1} of ${retries})`);
    return true;
  };
  const octokit = new Octokit({
    ...(options.token ? { auth: options.token } : {}),
    ...(options.apiUrl ? { baseUrl: options.apiUrl.replace(/\/+$/, '') } : {}),
    userAgent: 'waves-cli',
    throttle: { onRateLimit: onLimit('primary'), onSecondaryRateLimit: onLimit('secondary') },
    retry: { retries },
    request: { fetch: fetchWithTimeout(options.timeoutMs ?? DEFAULT_API_TIMEOUT_MS, globalThis.fetch, { maxWaitSeconds: maxWait, origin: new URL(options.apiUrl ?? GITHUB_API).origin, deadlineAt, totalMs }) },
    // Silence octokit's own console logging: waves reports on stderr itself.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  checkAnswers(octokit, host);
  keepToApiOrigin(octokit, options.apiUrl);
  states.set(octokit, state);
  return octokit;
}

/** Label names of an issue record (strings or `{name}` objects). */
function labelNames(record: IssueRecord): string[] {
  return (record.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name));
}

/**
 * The most pages one command reads from GitHub: 1,000 pages of 100, room for 100,000 issues and
 * pull requests (the largest open backlogs are about 10,000), while a server whose next-page
 * links never end stops in bounded time and memory (red team 2, #9).
 */
export const MAX_PAGES = 1000;

/** Pages read by each client, across all its listings. */
const pagesRead = new WeakMap<object, number>();

/**
 * The pages of a paginated endpoint, each validated by `read` (it names the page's URL when it
 * fails). A listing that comes back to a page it has read (a next-page link to itself, or a
 * cycle) fails at once; one client reads at most MAX_PAGES pages.
 */
async function* checkedPages<T>(
  pages: AsyncIterable<{ data: unknown; url: string }>,
  host: string,
  read: (data: unknown, host: string, endpoint: string) => T,
  client: object,
): AsyncGenerator<T> {
  const seen = new Set<string>();
  for await (const page of pages) {
    const endpoint = endpointOf('GET', page.url);
    if (seen.has(page.url)) throw new WavesError(`GitHub API at ${host}: ${endpoint}: a next-page link leads back to a page already read; is it a GitHub API?`);
    seen.add(page.url);
    const count = (pagesRead.get(client) ?? 0) + 1;
    pagesRead.set(client, count);
    if (count > MAX_PAGES) throw new WavesError(`GitHub API at ${host}: more than ${MAX_PAGES} pages (${MAX_PAGES * PER_PAGE} items) to read; waves reads at most ${MAX_PAGES} (narrow the backlog with --label, --milestone or --assignee)`);
    yield read(page.data, host, endpoint);
  }
}

/** A single issue, or null when it is gone (404, 410). */
async function readOne(octokit: Octokit, host: string, owner: string, repo: string, number: number): Promise<IssueRecord | null> {
  try {
    const response = await octokit.rest.issues.get({ owner, repo, issue_number: number });
    return readIssue(response.data, host, endpointOf('GET', response.url));
  } catch (error) {
    const status = (error as { status?: number; response?: unknown }).response !== undefined ? (error as { status?: number }).status : undefined;
    if (status === 404 || status === 410) return null;
    throw error;
  }
}

/** Reads the open issues of a repository needed to plan the top `top` (see the file header). */
export async function readGithubBacklog(options: GithubSourceOptions): Promise<GithubBacklog> {
  const { owner, name } = splitRepo(options.repo);
  const octokit = createOctokit(options);
  const host = apiHost(options.apiUrl);
  let requests = 0;

  try {
    let milestone: string | undefined;
    if (options.milestone !== undefined) {
      if (/^\d+$/.test(options.milestone) || options.milestone === '*' || options.milestone === 'none') milestone = options.milestone;
      else {
        let found: { number: number } | undefined;
        for await (const page of checkedPages(octokit.paginate.iterator(octokit.rest.issues.listMilestones, { owner, repo: name, state: 'all', per_page: PER_PAGE }), host, readMilestones, octokit)) {
          requests++;
          found ??= page.find((m) => m.title === options.milestone);
        }
        if (!found) throw new InputError(`--milestone ${JSON.stringify(options.milestone)}: no such milestone in ${options.repo}`);
        milestone = String(found.number);
      }
    }

    // Which of the repository's labels give a priority, and which rank.
    const tiers = new Map<number, string[]>();
    for await (const page of checkedPages(octokit.paginate.iterator(octokit.rest.issues.listLabelsForRepo, { owner, repo: name, per_page: PER_PAGE }), host, readLabels, octokit)) {
      requests++;
      for (const label of page) {
        const rank = labelRank(label.name, options.priorityLabels);
        if (rank !== null) tiers.set(rank, [...(tiers.get(rank) ?? []), label.name]);
      }
    }

    const read = new Map<number, IssueRecord>();
    const filters = { owner, repo: name, state: 'open' as const, sort: 'created' as const, direction: 'asc' as const, per_page: PER_PAGE, ...(milestone ? { milestone } : {}), ...(options.assignee ? { assignee: options.assignee } : {}) };
    const issuePages = (labels: readonly string[]) =>
      checkedPages(octokit.paginate.iterator(octokit.rest.issues.listForRepo, { ...filters, ...(labels.length > 0 ? { labels: labels.join(',') } : {}) }), host, readIssuesPage, octokit);
    let pages = 0;
    /** Reads issues with the given labels, oldest first, until `enough` of them are issues (not pull requests). */
    const readTier = async (labels: string[], enough: number): Promise<number> => {
      let found = 0;
      for await (const page of issuePages(labels)) {
        requests++;
        pages++;
        options.progress?.(`read ${pages} page(s), ${read.size + page.length} item(s)`);
        for (const item of page) {
          if (!read.has(item.number)) read.set(item.number, item);
          if (!isPullRequest(item)) found++;
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
      for await (const page of issuePages(options.labels)) {
        requests++;
        pages++;
        options.progress?.(`read ${pages} page(s), ${read.size} item(s)`);
        for (const item of page) {
          if (!read.has(item.number)) {
            read.set(item.number, item);
            if (!isPullRequest(item) && !labelNames(item).some((l) => labelRank(l, options.priorityLabels) !== null)) unlabelled++;
          }
        }
        if (certain + unlabelled >= options.top) break;
      }
    }

    // Dependencies of the selected issues that were not read: open or closed?
    const selected = rankIssues(parsedIssues(read), options.priorityLabels).slice(0, options.top);
    const perIssue = selected.map((issue) => ({
      number: issue.number,
      deps: extractMentions(issue.title, issue.body, { repoSlug: options.repo }).dependsOn.filter((dep) => !read.has(dep)),
    }));
    // Each issue names at most MAX_DEPENDENCIES (extract-mentions.ts); the look-ups of one command
    // are bounded too: a backlog's text decides how many requests go out with the token. Taken in
    // turns, each issue's first, then each one's second…, in rank order: the issues that name
    // dozens of numbers never push another issue's own dependency out of the look-ups.
    const wanted = dependencyTurns(perIssue, MAX_DEPENDENCY_LOOKUPS);
    if (wanted.skipped.size > 0) {
      const issues = perIssue.filter((p) => p.deps.some((dep) => wanted.skipped.has(dep))).map((p) => `#${p.number}`);
      options.warn(
        `the selected issues name ${wanted.numbers.length + wanted.skipped.size} dependencies that were not read; ${MAX_DEPENDENCY_LOOKUPS} are looked up, each issue's in turn, and the other ${wanted.skipped.size} (named by ${issues.slice(0, 5).join(', ')}${issues.length > 5 ? ', …' : ''}) are not in the backlog, and count as done`,
      );
    }
    for (const number of wanted.numbers) {
      requests++;
      const record = await readOne(octokit, host, owner, name, number);
      if (record) read.set(number, record);
    }
    return { issues: parsedIssues(read, options.warn), requests };
  } catch (error) {
    throw failure(error, options, octokit);
  }
}

/** The most dependencies one command looks up, one request each. */
export const MAX_DEPENDENCY_LOOKUPS = 200;

/**
 * Up to `max` distinct dependencies to look up, taken in turns across the issues (in their order):
 * each one's first, then each one's second, and so on; the rest are `skipped`.
 */
export function dependencyTurns(issues: readonly { deps: readonly number[] }[], max: number): { numbers: number[]; skipped: Set<number> } {
  const numbers: number[] = [];
  const taken = new Set<number>();
  const all = new Set(issues.flatMap((issue) => issue.deps));
  const longest = Math.max(0, ...issues.map((issue) => issue.deps.length));
  for (let turn = 0; turn < longest && numbers.length < max; turn++) {
    for (const issue of issues) {
      const dep = issue.deps[turn];
      if (dep === undefined || taken.has(dep)) continue;
      taken.add(dep);
      numbers.push(dep);
      if (numbers.length === max) break;
    }
  }
  return { numbers, skipped: new Set([...all].filter((dep) => !taken.has(dep))) };
}

/** The issues read, as the backlog; `warn` (the last call only) hears of text cut to GitHub's limits. */
function parsedIssues(read: Map<number, IssueRecord>, warn?: (message: string) => void): BacklogIssue[] {
  const parsed = parseIssues([...read.values()]);
  if (!parsed.ok) throw new WavesError(`GitHub sent an issue waves cannot read: ${parsed.problems[0]!.path}: ${parsed.problems[0]!.message}`);
  for (const note of parsed.notes ?? []) warn?.(note);
  return parsed.value;
}

/**
 * For `waves compare`: the given issues, one by one (the state of each: a 404 or 410 means gone),
 * and the open issues created after `since`, newest first, stopping at the first older one.
 */
export async function readGithubChanges(options: ClientOptions, numbers: readonly number[], since: string): Promise<BacklogIssue[]> {
  const { owner, name } = splitRepo(options.repo);
  const octokit = createOctokit(options);
  const host = apiHost(options.apiUrl);
  const read = new Map<number, IssueRecord>();
  try {
    for (const number of numbers) {
      const record = await readOne(octokit, host, owner, name, number);
      if (record) read.set(number, record);
    }
    const after = Date.parse(since);
    const listing = octokit.paginate.iterator(octokit.rest.issues.listForRepo, { owner, repo: name, state: 'open', sort: 'created', direction: 'desc', per_page: PER_PAGE });
    pages: for await (const page of checkedPages(listing, host, readIssuesPage, octokit)) {
      for (const item of page) {
        const created = item.created_at ?? item.createdAt;
        if (created === null || created === undefined || Date.parse(created) <= after) break pages;
        if (!read.has(item.number)) read.set(item.number, item);
      }
    }
    return parsedIssues(read, options.warn);
  } catch (error) {
    throw failure(error, options, octokit);
  }
}
