/**
 * GitHub servers that never stop or cannot be mended by asking again (red team 2, #9 and #17):
 * next-page links without end or back to a page already read, links with a user name, headers
 * over 16 KB, redirect loops, redirects to file: and data:, a rate limit asking for days, a field
 * of megabytes. Each ends `waves plan` at once with one line in waves' words, exit 1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');
const SHOP = path.join(ROOT, 'examples/shop');

type Handler = (req: IncomingMessage, res: ServerResponse, base: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A server on 127.0.0.1 that counts its requests. */
async function serve(handler: Handler): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    handler(req, res, base);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, requests: () => count };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const issue = (n: number, extra: Record<string, unknown> = {}) => ({ number: n, title: `Issue ${n}`, body: '`src/a.ts`', labels: [], state: 'open', created_at: '2026-01-01T00:00:00Z', ...extra });

async function plan(url: string, env: Record<string, string> = {}) {
  return execa('node', [BIN, 'plan', '--repo', 'acme/shop', '--api-url', url, '--root', SHOP, '--top', '3'], {
    cwd: ROOT,
    reject: false,
    stdin: 'ignore',
    env: { GITHUB_TOKEN: 'ghp_limits0123456789', GH_TOKEN: '', GITHUB_API_URL: '', ...env },
    extendEnv: true,
  });
}

function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

describe('pagination that never ends', () => {
  it('stops at once when a next-page link leads back to the same page', async () => {
    const server = await serve((req, res, base) => {
      if (req.url!.includes('/labels')) return json(res, 200, [{ name: 'bug' }], { link: `<${base}${req.url}>; rel="next"` });
      json(res, 200, [issue(1)]);
    });
    const result = await plan(server.url);
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toMatch(/^waves: GitHub API at 127\.0\.0\.1:\d+: GET \/repos\/acme\/shop\/labels: a next-page link leads back to a page already read; is it a GitHub API\?$/);
    expect(server.requests()).toBe(2);
  });

  it('stops when pages alternate, and after 1000 pages of links that never end, naming the cap', async () => {
    const cycle = await serve((req, res, base) => {
      const page = new URL(req.url!, base).searchParams.get('page') === '2' ? 1 : 2;
      if (req.url!.includes('/labels')) return json(res, 200, [{ name: `l${page}` }], { link: `<${base}/repos/acme/shop/labels?per_page=100&page=${page}>; rel="next"` });
      json(res, 200, [issue(1)]);
    });
    const cycled = await plan(cycle.url);
    expect(cycled.exitCode).toBe(1);
    expect(oneLine(cycled.stderr)).toMatch(/a next-page link leads back to a page already read/);

    const endless = await serve((req, res, base) => {
      const page = Number(new URL(req.url!, base).searchParams.get('page') ?? 1);
      if (req.url!.includes('/labels')) return json(res, 200, [{ name: `l${page}` }], { link: `<${base}/repos/acme/shop/labels?per_page=100&page=${page + 1}>; rel="next"` });
      json(res, 200, [issue(1)]);
    });
    const result = await plan(endless.url);
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toMatch(/^waves: GitHub API at 127\.0\.0\.1:\d+: more than 1000 pages \(100000 items\) to read; waves reads at most 1000 /);
    expect(endless.requests()).toBe(1001);
  }, 120_000);
});

describe('answers asking again cannot mend', () => {
  const cases: [string, Handler, RegExp][] = [
    [
      'a next-page link with a user name and password',
      (req, res, base) => json(res, 200, req.url!.includes('/labels') ? [{ name: 'bug' }] : [issue(1)], { link: `<${base.replace('http://', 'http://user:pw@')}/repos/acme/shop/labels?page=2>; rel="next"` }),
      /^waves: GitHub API at 127\.0\.0\.1:\d+: a next-page link carries a user name or password; refused before sending$/,
    ],
    [
      'headers over 16 KB',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-big': 'a'.repeat(200_000) });
        res.end('[]');
      },
      /^waves: GitHub API at 127\.0\.0\.1:\d+: GET \/repos\/acme\/shop\/labels answered headers larger than 16 KB; /,
    ],
    [
      'a redirect loop',
      (req, res) => {
        res.writeHead(302, { location: `${req.url}&x=1` });
        res.end();
      },
      /^waves: GitHub API at 127\.0\.0\.1:\d+: GET \/repos\/acme\/shop\/labels redirects in a loop \(more than 20 redirects\); giving up$/,
    ],
    [
      'a redirect to file:',
      (_req, res) => {
        res.writeHead(302, { location: 'file:///etc/passwd' });
        res.end();
      },
      /^waves: GitHub API at 127\.0\.0\.1:\d+: GET \/repos\/acme\/shop\/labels redirects to a URL that is not http\(s\); refused$/,
    ],
    [
      'a redirect to data:',
      (_req, res) => {
        res.writeHead(302, { location: 'data:application/json,[]' });
        res.end();
      },
      /redirects to a URL that is not http\(s\); refused$/,
    ],
    [
      'a 429 asking to wait three years',
      (_req, res) => json(res, 429, { message: 'slow down' }, { 'retry-after': '99999999' }),
      /^waves: GitHub API at 127\.0\.0\.1:\d+ asks to wait 99999999 s \(429\), more than the 120 s allowed; giving up$/,
    ],
    ...(['Infinity', '1e400'] as const).map(
      (after): [string, Handler, RegExp] => [
        `a 429 whose retry-after is ${after} (red team L10)`,
        (_req, res) => json(res, 429, { message: 'slow down' }, { 'retry-after': after }),
        /^waves: GitHub API at 127\.0\.0\.1:\d+ asks to wait more than 10\^9 s \(429\), more than the 120 s allowed; giving up$/,
      ],
    ),
    [
      'a valid page of 25 MB with a 5 MB title',
      (req, res) => json(res, 200, req.url!.includes('/labels') ? [] : [issue(1, { title: 'T'.repeat(5 * 1024 * 1024), body: 'B'.repeat(20 * 1024 * 1024) })]),
      /^waves: GitHub API at 127\.0\.0\.1:\d+: GET \/repos\/acme\/shop\/issues answered a field larger than 1 MB; no field of GitHub's is that large/,
    ],
  ];
  for (const [what, handler, message] of cases) {
    it(`gives up at once on ${what}, in one line`, async () => {
      const server = await serve(handler);
      const result = await plan(server.url);
      expect(result.exitCode).toBe(1);
      expect(oneLine(result.stderr)).toMatch(message);
      expect(result.stderr).not.toMatch(/UND_ERR|fetch failed|redirect count|HTTP\(S\) scheme|does not parse/);
      // Asked once, not four times (a redirect loop is one request that fetch follows 20 times; the big page comes after the labels).
      expect(server.requests(), what).toBeLessThanOrEqual(what === 'a redirect loop' ? 21 : what.startsWith('a valid page') ? 2 : 1);
    }, 60_000);
  }

  it('refuses, with one line and without handing it to octokit, a page of a million labels (red team B3′)', async () => {
    const server = await serve((req, res) => {
      if (req.url?.startsWith('/repos/acme/shop/labels')) return json(res, 200, []);
      json(res, 200, [{ ...issue(1), labels: Array(1_200_000).fill('a') }]);
    });
    const result = await plan(server.url);
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toMatch(/answered more than 1,000,000 JSON values; no page of GitHub's holds that many/);
    expect(server.requests()).toBe(2);
  }, 60_000);

  it('takes malformed HTTP, a redirect carrying credentials and a next-page link to file: for what they are, at once, never as a host unreachable (red team 4)', async () => {
    // A raw server: two different Content-Length headers, which no HTTP client can read.
    let count = 0;
    const raw = createNetServer((socket) => {
      count++;
      socket.on('data', () => {
        socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\ncontent-length: 5\r\n\r\n[]');
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const result = await plan(`http://127.0.0.1:${(raw.address() as AddressInfo).port}`);
      expect(result.exitCode).toBe(1);
      expect(oneLine(result.stderr)).toMatch(/answered malformed HTTP \(HPE_[A-Z_]+\); is it a GitHub API\?$/);
      expect(count).toBe(1);
    } finally {
      raw.close();
    }
    // A 101 Switching Protocols to a plain GET (red team B7′): an answer, not an unreachable host.
    let upgrades = 0;
    const upgrade = createNetServer((socket) => {
      upgrades++;
      socket.once('data', () => {
        socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n');
        setTimeout(() => socket.end(), 50);
      });
    });
    await new Promise<void>((resolve) => upgrade.listen(0, '127.0.0.1', resolve));
    try {
      const result = await plan(`http://127.0.0.1:${(upgrade.address() as AddressInfo).port}`);
      expect(result.exitCode).toBe(1);
      expect(oneLine(result.stderr)).toMatch(/answered an unexpected HTTP status \(101 Switching Protocols, an upgrade no one asked for\); is it a GitHub API\?$/);
      expect(upgrades).toBe(1);
    } finally {
      upgrade.close();
    }
    const creds = await serve((_req, res, base) => {
      res.writeHead(302, { location: base.replace('http://', 'http://u:p@') + '/x' });
      res.end();
    });
    const redirected = await plan(creds.url);
    expect(redirected.exitCode).toBe(1);
    expect(oneLine(redirected.stderr)).toMatch(/leads to a URL with a user name or password in it; refused$/);
    expect(creds.requests()).toBe(1);
    const file = await serve((req, res) => {
      if (req.url?.startsWith('/repos/acme/shop/labels')) return json(res, 200, []);
      json(res, 200, [issue(1)], { link: '<file:///etc/passwd>; rel="next"' });
    });
    const linked = await plan(file.url);
    expect(linked.exitCode).toBe(1);
    expect(oneLine(linked.stderr)).toMatch(/a next-page link leads to a file: URL; refused before sending/);
  }, 60_000);
});

describe('a token no header can carry (red team L10)', () => {
  it('is refused at once, in one line naming the variable, exit 2, and never sent', async () => {
    const server = await serve((_req, res) => json(res, 200, []));
    const result = await execa('node', [BIN, 'plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP], {
      cwd: ROOT,
      reject: false,
      stdin: 'ignore',
      env: { GITHUB_TOKEN: 'ghp_abc0123456789\r\nX-Evil: 1', GH_TOKEN: '', GITHUB_API_URL: '' },
      extendEnv: true,
    });
    expect(result.exitCode).toBe(2);
    expect(oneLine(result.stderr)).toBe('waves: GITHUB_TOKEN holds a space, a line break or another character no token has: check how it was set');
    expect(server.requests()).toBe(0);
  });
});

describe('one budget for all the reads of a command (red team L4: limits that hold each on its own multiplied to hours)', () => {
  it('gives up on a server that answers every page after a secondary rate limit, in one line, once the budget is spent', async () => {
    const seen = new Set<string>();
    const server = await serve((req, res, base) => {
      // Each page is limited once, then served, with a next page: 1,000 pages would take hours.
      if (!seen.has(req.url!)) {
        seen.add(req.url!);
        return json(res, 403, { message: 'You have exceeded a secondary rate limit' }, { 'retry-after': '1' });
      }
      const page = Number(new URL(req.url!, base).searchParams.get('page') ?? '1');
      if (req.url!.includes('/labels')) return json(res, 200, [{ name: `l${page}` }], { link: `<${base}/repos/acme/shop/labels?page=${page + 1}>; rel="next"` });
      json(res, 200, [issue(page)]);
    });
    const result = await plan(server.url, { WAVES_GITHUB_TOTAL_MS: '4000' });
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr.split('\n').filter((l) => !/rate limit on GET .*: waiting/.test(l)).join('\n'))).toMatch(/^waves: GitHub (secondary rate limit at 127\.0\.0\.1:\d+: waiting 1 s more would take reading past 4s in all|API at 127\.0\.0\.1:\d+: reading took more than 4s in all \(slow answers, retries and rate-limit waits together\)); giving up$/);
  }, 90_000);

  it('gives up on a server whose every answer is a 503, once the budget is spent', async () => {
    const server = await serve((_req, res) => json(res, 503, { message: 'unavailable' }));
    const result = await plan(server.url, { WAVES_GITHUB_TOTAL_MS: '2000' });
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toMatch(/^waves: GitHub API at 127\.0\.0\.1:\d+: reading took more than 2s in all \(slow answers, retries and rate-limit waits together\); giving up$/);
  }, 90_000);
});

