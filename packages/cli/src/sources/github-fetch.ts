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
 */
import { WavesError } from '@waves/planner';
import { endpointOf } from './github-answers.js';

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

function tooLarge(input: Parameters<Fetch>[0], init: RequestInit, maxBytes: number): AnswerTooLargeError {
  const url = input instanceof Request ? input.url : String(input);
  let host = '?';
  try {
    host = new URL(url).host;
  } catch {
    // An unparsable URL never reaches fetch; keep the message whole anyway.
  }
  const megabytes = Math.round(maxBytes / (1024 * 1024));
  return new AnswerTooLargeError(`GitHub API at ${host}: ${endpointOf(init.method ?? 'GET', url)} answered more than ${megabytes} MB; no page of GitHub's is that large, so it was not read`);
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

export function fetchWithTimeout(timeoutMs: number, inner: Fetch = globalThis.fetch, maxBytes = MAX_ANSWER_BYTES): Fetch {
  return async (input, init = {}) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await inner(input, { ...init, signal });
    // Read the body under the same deadline, then hand octokit a response that is already whole.
    // NOTE: a body of 204/205/304 must be null, or the Response constructor throws.
    const empty = response.status === 204 || response.status === 205 || response.status === 304;
    const body = empty ? null : await readBody(response, maxBytes, () => tooLarge(input, init, maxBytes));
    const whole = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // octokit reports `response.url` (the URL after redirects); a constructed Response has none.
    Object.defineProperty(whole, 'url', { value: response.url });
    return whole;
  };
}
