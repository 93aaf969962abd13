import { describe, expect, it } from 'vitest';
import { fetchWithTimeout } from '@waves/cli';

/** A fetch that records what it was asked and answers `status`. */
function recording(status = 200) {
  const asked: string[] = [];
  const fetch = async (input: string | URL | Request) => {
    asked.push(input instanceof Request ? input.url : String(input));
    // A status the Response constructor refuses (999) comes as a plain object a server could make undici give.
    return status >= 200 && status <= 599 ? new Response('[]', { status }) : ({ status, statusText: '', headers: new Headers(), body: null, url: '' } as unknown as Response);
  };
  return { asked, fetch };
}

describe('the GitHub fetch', () => {
  it('sends nothing to an origin other than the API’s, whatever URL octokit made of a link', async () => {
    const { asked, fetch } = recording();
    const guarded = fetchWithTimeout(5_000, fetch, { origin: 'http://127.0.0.1:18140' });
    await expect(guarded('http://localhost:18141/steal', { headers: { authorization: 'token ghp_x' } })).rejects.toThrow(
      'GitHub API at 127.0.0.1:18140: a request to http://localhost:18141, another host, refused before sending (the token goes only to http://127.0.0.1:18140)',
    );
    await expect(guarded('not a url')).rejects.toThrow(/a request to a URL that is not one, another host, refused before sending/);
    expect(asked).toEqual([]);
    expect((await guarded('http://127.0.0.1:18140/api/v3/repos/o/n/issues')).status).toBe(200);
    expect(asked).toEqual(['http://127.0.0.1:18140/api/v3/repos/o/n/issues']);
  });

  it('gives up at once on a rate limit whose reset lies further ahead than the wait allowed (95 years: octokit would read 0 s)', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 95 * 365 * 86_400);
    const limited = async () => new Response('{"message":"API rate limit exceeded"}', { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } });
    await expect(fetchWithTimeout(5_000, limited, { maxWaitSeconds: 120 })('http://127.0.0.1:1/repos/o/n/issues')).rejects.toThrow(/^GitHub primary rate limit at 127\.0\.0\.1:1: it asks to wait more than 10\^9 s, more than the 120 s allowed; giving up$/);
    // A reset within the wait is octokit's to wait out.
    const soon = async () => new Response('{}', { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 5) } });
    expect((await fetchWithTimeout(5_000, soon, { maxWaitSeconds: 120 })('http://127.0.0.1:1/x')).status).toBe(403);
  });

  it('gives up at once on an answer whose status is no HTTP status', async () => {
    const { fetch } = recording(999);
    await expect(fetchWithTimeout(5_000, fetch)('http://127.0.0.1:1/repos/o/n/labels')).rejects.toThrow('GitHub API at 127.0.0.1:1: GET /repos/o/n/labels answered with status 999, which is no HTTP status');
  });
});
