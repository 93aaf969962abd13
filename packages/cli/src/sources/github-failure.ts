/**
 * One line for a GitHub request that failed for good (after octokit's retries): what kind of
 * failure, at which host. octokit reports every fault below HTTP — a refused connection, a
 * failed DNS lookup, a timeout — as a status-500 `RequestError` *without a response*; those are
 * told apart from a real 5xx answer here, by the cause fetch gave. The body of an error answer
 * is never shown: only GitHub's own `message` field, cut to one short line.
 */
import { InputError, WavesError } from '@waves/planner';
import { endpointOf } from './github-answers.js';

export interface FailureContext {
  repo: string;
  host: string;
  timeoutMs: number;
  /** How many times a request is tried before it fails (1 + retries). */
  attempts: number;
}

interface RequestErrorLike {
  status?: number;
  response?: { data?: unknown };
  request?: { method?: string; url?: string };
  cause?: unknown;
  message?: string;
}

export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

/** The causes of an error, outermost first (fetch nests the system error under a TypeError). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e !== undefined && e !== null && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** A short, single-line, printable form of text from the server. */
function serverText(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

export function describeFailure(error: unknown, context: FailureContext): Error {
  const e = error as RequestErrorLike;
  const status = e.status;
  const endpoint = endpointOf(e.request?.method, e.request?.url);
  // Not a request's failure: a bug of waves, shown as such by the CLI.
  if (e.request === undefined) return error instanceof Error ? error : new Error(String(error));
  if (e.response === undefined) {
    const chain = causes(e.cause);
    if (chain.some((c) => (c as { name?: string }).name === 'TimeoutError')) {
      return new WavesError(`GitHub API at ${context.host} timed out: no answer to ${endpoint} within ${formatDuration(context.timeoutMs)}, ${context.attempts} time(s)`);
    }
    const code = chain.map((c) => (c as { code?: unknown }).code).find((c): c is string => typeof c === 'string' && /^[A-Z0-9_]+$/.test(c));
    const reason = code ?? serverText(String((chain.at(-1) as Error | undefined)?.message ?? e.message ?? 'no answer'));
    return new WavesError(`GitHub API at ${context.host} unreachable: ${reason}`);
  }
  if (status === 401) return new InputError('GitHub rejected the token (401): check GITHUB_TOKEN or GH_TOKEN');
  if (status === 404) {
    // Every request waves makes is under /repos/OWNER/NAME; anything else came from a next-page link.
    const path = endpoint.slice(endpoint.indexOf(' ') + 1).toLowerCase();
    if (!path.includes(`/repos/${context.repo.toLowerCase()}`) && !path.includes('{owner}')) {
      return new WavesError(`GitHub API at ${context.host}: ${endpoint} not found (404), a page that a next-page link of the API named; is it a GitHub API?`);
    }
    return new InputError(`repository ${context.repo} not found or not visible with this token (404)`);
  }
  if (status === 403 || status === 429) return new WavesError(`GitHub refused the request (${status}): rate limit exhausted or access forbidden`);
  const data = e.response?.data;
  const message = data !== null && typeof data === 'object' && typeof (data as { message?: unknown }).message === 'string' ? serverText((data as { message: string }).message) : '';
  return new WavesError(`GitHub API failed${status ? ` (${status})` : ''} on ${endpoint} at ${context.host}${message ? `: ${message}` : ''}`);
}
