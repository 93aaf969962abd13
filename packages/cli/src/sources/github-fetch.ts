/**
 * The fetch octokit uses (`request.fetch`): the global fetch with a deadline on the whole
 * exchange — connecting, the headers *and* the body — and a cap on the body. octokit has no
 * timeout of its own (its docs point to `request.signal`, one signal for every request); a server
 * that accepts the connection and never answers would otherwise hang waves for ever, and one that
 * answers two million items would make it read until V8 runs out of heap.
 *
 * A deadline that passes makes fetch reject with a `TimeoutError`; octokit turns any rejection
 * of fetch into a status-500 `RequestError` without a response, which its retry plugin retries
 * with backoff like a network reset. `describeFailure` tells the kinds apart afterwards.
 *
 * An answer past `maxBytes` (32 MB: GitHub's largest pages, 100 issues with long bodies, are a
 * few megabytes) is not read further and fails at once, without retries: see AnswerTooLargeError.
 * So does one holding a single JSON string past 1 MB (GitHub's largest field, an issue body, holds
 * 65,536 characters): octokit's JSON parser overflows the stack on a string of ~10 MB, which read as
 * "JSON that does not parse".
 *
 * Failures that asking again cannot mend fail at once too, in waves' words, rather than being
 * retried for 14 s and then shown in undici's (red team 2, #17): headers over undici's 16 KB, a
 * redirect loop, a redirect to a URL that is not http(s), a URL that carries a user name or
 * password; and a rate limit (403/429) whose `retry-after` is longer than waves would wait.
 */
import { WavesError } from '@waves/planner';
import { endpointOf } from './github-answers.js';
import { formatDuration } from './github-failure.js';

export type Fetch = typeof globalThis.fetch;

/** The most one answer may hold. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * An answer too large to read. NOTE: named `AbortError` on purpose: octokit passes a fetch error
 * of that name through as it is (anything else becomes a retryable status-500 `RequestError`), so
 * a server that answers too much is asked once, not four times. It is still a `WavesError`: one
 * line, exit 1.
 */
export class AnswerTooLargeError extends WavesError {
  constructor(message: string) {
    super(message);
    this.name = 'AbortError';
  }
}

/** A failure asking again cannot mend: not retried (the same `AbortError` device), one line, exit 1. */
export class NotRetriedError extends AnswerTooLargeError {}

/** The longest JSON string an answer may hold: see the file header. */
export const MAX_FIELD_BYTES = 1024 * 1024;

/** The longest wait a rate limit may ask for before waves gives up, by default (seconds). */
export const DEFAULT_MAX_WAIT_SECONDS = 120;

/** `host` and `GET /path` of a request, for messages. */
function where(input: Parameters<Fetch>[0], init: RequestInit): { host: string; endpoint: string } {
  const url = input instanceof Request ? input.url : String(input);
  let host = '?';
  try {
    host = new URL(url).host;
  } catch {
    // An unparsable URL never reaches fetch; keep the message whole anyway.
  }
  return { host, endpoint: endpointOf(init.method ?? 'GET', url) };
}

function tooLarge(input: Parameters<Fetch>[0], init: RequestInit, maxBytes: number): AnswerTooLargeError {
  const { host, endpoint } = where(input, init);
  const megabytes = Math.round(maxBytes / (1024 * 1024));
  return new AnswerTooLargeError(`GitHub API at ${host}: ${endpoint} answered more than ${megabytes} MB; no page of GitHub's is that large, so it was not read`);
}

/** Whether the JSON text holds a string literal longer than `max` bytes (a linear scan, no parse). */
function holdsLongString(body: Uint8Array, max: number): boolean {
  let start = -1;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (start < 0) {
      if (byte === 0x22) start = i;
    } else if (byte === 0x5c) i++;
    else if (byte === 0x22) {
      if (i - start - 1 > max) return true;
      start = -1;
    }
  }
  return start >= 0 && body.length - start - 1 > max;
}

/** Seconds a `retry-after` header asks for (a number of seconds or an HTTP date), or null. */
function retryAfterSeconds(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text);
  // `Infinity`, `1e400`: no date, a wait no one will make (red team L10: it was retried, then "refused").
  if (/^\+?(?:infinity|\d+(?:\.\d+)?e\+?\d+)$/i.test(text)) return Number(text.replace(/^\+/, '').replace(/^infinity$/i, 'Infinity'));
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The one line for a fetch failure asking again cannot mend, or null for one worth retrying. */
function finalFailure(error: unknown, input: Parameters<Fetch>[0], init: RequestInit): NotRetriedError | null {
  const chain: { name?: unknown; code?: unknown; message?: unknown }[] = [];
  for (let e: unknown = error; e !== null && typeof e === 'object' && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e as object);
  const { host, endpoint } = where(input, init);
  const has = (test: (c: (typeof chain)[number]) => boolean) => chain.some(test);
  const says = (pattern: RegExp) => has((c) => typeof c.message === 'string' && pattern.test(c.message));
  if (has((c) => c.code === 'UND_ERR_HEADERS_OVERFLOW')) {
    return new NotRetriedError(`GitHub API at ${host}: ${endpoint} answered headers larger than 16 KB; no answer of GitHub's has such headers, so it was not read`);
  }
  if (says(/redirect count exceeded/i)) return new NotRetriedError(`GitHub API at ${host}: ${endpoint} redirects in a loop (more than 20 redirects); giving up`);
  if (says(/URL scheme must be a HTTP\(S\) scheme/i)) {
    return new NotRetriedError(`GitHub API at ${host}: ${endpoint} redirects to a URL that is not http(s); refused`);
  }
  if (says(/includes credentials/i) || (says(/cross origin not allowed/i) && says(/cors/i))) {
    return new NotRetriedError(`GitHub API at ${host}: ${endpoint} leads to a URL with a user name or password in it; refused`);
  }
  // The host answered, but not in HTTP any client can read: asking again gets the same answer.
  const parser = chain.map((c) => c.code).find((code): code is string => typeof code === 'string' && code.startsWith('HPE_'));
  if (parser !== undefined) return new NotRetriedError(`GitHub API at ${host}: ${endpoint} answered malformed HTTP (${parser}); is it a GitHub API?`);
  if (has((c) => c.code === 'ERR_ASSERTION') || says(/invalid status code|status code must be/i)) {
    return new NotRetriedError(`GitHub API at ${host}: ${endpoint} answered with no valid HTTP status; is it a GitHub API?`);
  }
  // A 1xx answer to a plain request (101 Switching Protocols): undici says "bad upgrade". The host
  // answered, with a status no API answers a GET with; asking again gets the same.
  if (has((c) => c.code === 'UND_ERR_SOCKET' && typeof c.message === 'string' && /bad upgrade/i.test(c.message))) {
    return new NotRetriedError(`GitHub API at ${host}: ${endpoint} answered an unexpected HTTP status (101 Switching Protocols, an upgrade no one asked for); is it a GitHub API?`);
  }
  if (says(/too many content-encodings/i)) return new NotRetriedError(`GitHub API at ${host}: ${endpoint} answered a body encoded more than 5 times over; not read`);
  return null;
}

/**
 * The most JSON values an answer may hold. octokit parses every answer with a reviver called once
 * per value (json-with-bigint), which took 1.9 GB for a page of 7 million labels (red team B3′)
 * before any check of waves' could cut them; a page of GitHub's holds far fewer.
 */
const MAX_VALUES = 1_000_000;

/** Whether a JSON body holds more than `MAX_VALUES` values: parsed natively (no reviver), then counted. */
function tooManyValues(body: Uint8Array): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return false; // not JSON: octokit says so
  }
  let count = 0;
  const stack: unknown[] = [parsed];
  while (stack.length > 0) {
    const value = stack.pop();
    if (++count > MAX_VALUES) return true;
    if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) stack.push(item);
  }
  return false;
}

/** The whole body, or an AnswerTooLargeError as soon as it passes `maxBytes` (by its Content-Length, or as it streams). */
async function readBody(response: Response, maxBytes: number, fail: () => Error): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw fail();
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw fail();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

export interface FetchLimits {
  maxBytes?: number;
  /** A rate limit asking for a longer wait than this (seconds) fails at once. */
  maxWaitSeconds?: number;
  /**
   * The only origin a request may go to (the API's): checked on the very URL fetch is given, after
   * octokit has made it from a next-page link (its URI templates expanded: `{x}http://other/` is
   * `http://other/` by then), so the token can go nowhere else, whatever the link said.
   */
  origin?: string;
  /**
   * When (ms since 1970) every request of the client must be done by: slow answers, retries and
   * rate-limit waits together (each bounded on its own, they multiplied to hours over 1,000 pages:
   * red team L4). A request past it fails at once, and each one's deadline is no later.
   */
  deadlineAt?: number;
  /** How long that was, for the message. */
  totalMs?: number;
}

/** All GitHub reads of one command end within this, by default. */
export const DEFAULT_TOTAL_MS = 15 * 60_000;

export function fetchWithTimeout(timeoutMs: number, inner: Fetch = globalThis.fetch, limits: FetchLimits = {}): Fetch {
  const maxBytes = limits.maxBytes ?? MAX_ANSWER_BYTES;
  const maxWait = limits.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS;
  return async (input, init = {}) => {
    const left = limits.deadlineAt === undefined ? Number.POSITIVE_INFINITY : limits.deadlineAt - Date.now();
    if (left <= 0) {
      throw new NotRetriedError(`GitHub API at ${where(input, init).host}: reading took more than ${formatDuration(limits.totalMs ?? 0)} in all (slow answers, retries and rate-limit waits together); giving up`);
    }
    const attemptMs = Math.min(timeoutMs, Math.max(1, left));
    if (limits.origin !== undefined) {
      const url = input instanceof Request ? input.url : String(input);
      let origin: string | null = null;
      try {
        origin = new URL(url).origin;
      } catch {
        origin = null;
      }
      if (origin !== limits.origin) {
        throw new NotRetriedError(`GitHub API at ${new URL(limits.origin).host}: a request to ${origin ?? 'a URL that is not one'}, another host, refused before sending (the token goes only to ${limits.origin})`);
      }
    }
    const deadline = AbortSignal.timeout(attemptMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    let response: Response;
    try {
      response = await inner(input, { ...init, signal });
    } catch (error) {
      throw finalFailure(error, input, init) ?? error;
    }
    if (response.status === 429 || response.status === 403) {
      // A primary limit's reset time (seconds since 1970) past 2^31: octokit keeps 32 bits of it, and
      // a reset 95 years ahead read as "waiting 0 s", three times over. Earlier ones are octokit's.
      const reset = response.headers.get('x-ratelimit-remaining') === '0' ? Number(response.headers.get('x-ratelimit-reset')) : Number.NaN;
      if (response.headers.get('retry-after') === null && reset >= 2 ** 31) {
        await response.body?.cancel().catch(() => undefined);
        throw new NotRetriedError(`GitHub primary rate limit at ${where(input, init).host}: it asks to wait more than 10^9 s, more than the ${maxWait} s allowed; giving up`);
      }
      const wait = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
      if (wait !== null && wait > maxWait) {
        await response.body?.cancel().catch(() => undefined);
        const { host } = where(input, init);
        const shown = wait > 1e9 ? 'more than 10^9' : String(Math.round(wait));
        throw new NotRetriedError(`GitHub API at ${host} asks to wait ${shown} s (${response.status}), more than the ${maxWait} s allowed; giving up`);
      }
    }
    // Read the body under the same deadline, then hand octokit a response that is already whole.
    // NOTE: a body of 204/205/304 must be null, or the Response constructor throws.
    const empty = response.status === 204 || response.status === 205 || response.status === 304;
    const body = empty ? null : await readBody(response, maxBytes, () => tooLarge(input, init, maxBytes));
    if (body !== null && body.length > MAX_FIELD_BYTES && holdsLongString(body, MAX_FIELD_BYTES)) {
      const { host, endpoint } = where(input, init);
      throw new NotRetriedError(`GitHub API at ${host}: ${endpoint} answered a field larger than ${MAX_FIELD_BYTES / (1024 * 1024)} MB; no field of GitHub's is that large (an issue body holds at most 65,536 characters), so it was not read`);
    }
    if (body !== null && body.length > 2 * MAX_VALUES && tooManyValues(body)) {
      const { host, endpoint } = where(input, init);
      throw new NotRetriedError(`GitHub API at ${host}: ${endpoint} answered more than ${MAX_VALUES.toLocaleString('en-US')} JSON values; no page of GitHub's holds that many (100 issues of 100 labels are under 100,000), so it was not read`);
    }
    // An answer whose status is no HTTP status (999) cannot be a Response; asking again mends nothing.
    if (response.status < 200 || response.status > 599) {
      const { host, endpoint } = where(input, init);
      throw new NotRetriedError(`GitHub API at ${host}: ${endpoint} answered with status ${response.status}, which is no HTTP status`);
    }
    const whole = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // octokit reports `response.url` (the URL after redirects); a constructed Response has none.
    Object.defineProperty(whole, 'url', { value: response.url });
    return whole;
  };
}
