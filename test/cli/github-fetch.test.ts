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

  it('gives up at once on an answer whose status is no HTTP status', async () => {
    const { fetch } = recording(999);
    await expect(fetchWithTimeout(5_000, fetch)('http://127.0.0.1:1/repos/o/n/labels')).rejects.toThrow('GitHub API at 127.0.0.1:1: GET /repos/o/n/labels answered with status 999, which is no HTTP status');
  });
});
