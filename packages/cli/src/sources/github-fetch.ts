/**
 * The fetch octokit uses (`request.fetch`): the global fetch with a deadline on the whole
 * exchange — connecting, the headers *and* the body. octokit has no timeout of its own (its
 * docs point to `request.signal`, one signal for every request); a server that accepts the
 * connection and never answers would otherwise hang waves for ever.
 *
 * A deadline that passes makes fetch reject with a `TimeoutError`; octokit turns any rejection
 * of fetch into a status-500 `RequestError` without a response, which its retry plugin retries
 * with backoff like a network reset. `describeFailure` tells the kinds apart afterwards.
 */

export type Fetch = typeof globalThis.fetch;

export function fetchWithTimeout(timeoutMs: number, inner: Fetch = globalThis.fetch): Fetch {
  return async (input, init = {}) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await inner(input, { ...init, signal });
    // Read the body under the same deadline, then hand octokit a response that is already whole.
    // NOTE: a body of 204/205/304 must be null, or the Response constructor throws.
    const empty = response.status === 204 || response.status === 205 || response.status === 304;
    const body = empty ? null : await response.arrayBuffer();
    const whole = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // octokit reports `response.url` (the URL after redirects); a constructed Response has none.
    Object.defineProperty(whole, 'url', { value: response.url });
    return whole;
  };
}
