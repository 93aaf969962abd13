/**
 * The GitHub source against hostile or broken servers and configs: where the token may go, which
 * API URLs and repository names are refused before any request, request timeouts, unreachable
 * hosts, and answers that are not what GitHub sends. Every server here is the fake on 127.0.0.1.
 */
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeGithub, type Fault, type FakeIssue } from '../helpers/fake-github.js';
import { TempRepo } from '../helpers/temp-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');
const SHOP = path.join(ROOT, 'examples/shop');
const TOKEN = 'ghp_trust0123456789abcdefTOKEN';
const ISSUES: FakeIssue[] = [{ number: 7, title: 'Fix the cart', body: '`src/a.ts`', created_at: '2026-01-01T00:00:00Z' }];

function waves(args: string[], env: Record<string, string> = {}) {
  return execa('node', [BIN, ...args], { cwd: ROOT, reject: false, stdin: 'ignore', env: { GITHUB_TOKEN: '', GH_TOKEN: '', GITHUB_API_URL: '', ...env }, extendEnv: true });
}

/** The one line of stderr of a failed command (and there is only one). */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

const servers: FakeGithub[] = [];
const repos: TempRepo[] = [];
async function fake(faults: Fault[] = [], issues: FakeIssue[] = ISSUES): Promise<FakeGithub> {
  const server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues, faults }).start();
  servers.push(server);
  return server;
}
async function repoWith(config: unknown): Promise<TempRepo> {
  const repo = await TempRepo.create({ 'src/a.ts': 'export const a = 1;\n', 'waves.config.json': JSON.stringify(config) });
  repos.push(repo);
  return repo;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await Promise.all(repos.splice(0).map((r) => r.dispose()));
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('where the token goes', () => {
  it("refuses a repository config's apiUrl that the user has not confirmed: exit 2, and not one request reaches it", async () => {
    const server = await fake();
    const repo = await repoWith({ defaults: { repo: 'acme/shop', apiUrl: `${server.url}/` } });
    const result = await waves(['plan', '--root', repo.root], { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode).toBe(2);
    const line = oneLine(result.stderr);
    expect(line).toMatch(/defaults\.apiUrl/);
    expect(line).toMatch(/--api-url/);
    expect(line).toMatch(/GITHUB_API_URL/);
    expect(server.requests.filter((r) => r.authorization !== undefined)).toEqual([]);
    expect(server.requests).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it('refuses the apiUrl of a config given with --config too', async () => {
    const server = await fake();
    const repo = await repoWith({});
    await repo.write({ 'other.json': JSON.stringify({ defaults: { repo: 'acme/shop', apiUrl: server.url } }) });
    const result = await waves(['plan', '--root', repo.root, '--config', path.join(repo.root, 'other.json')], { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode).toBe(2);
    expect(oneLine(result.stderr)).toMatch(/defaults\.apiUrl/);
    expect(server.requests).toEqual([]);
  });

  it('uses the config host once the user confirms it with --api-url or GITHUB_API_URL', async () => {
    const server = await fake();
    const repo = await repoWith({ defaults: { repo: 'acme/shop', apiUrl: `${server.url}/` } });
    const byFlag = await waves(['plan', '--root', repo.root, '--api-url', server.url, '--json'], { GITHUB_TOKEN: TOKEN });
    expect(byFlag.exitCode, byFlag.stderr).toBe(0);
    expect(JSON.parse(byFlag.stdout).waves[0].issues[0].number).toBe(7);
    const byEnv = await waves(['plan', '--root', repo.root, '--json'], { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: `${server.url}/` });
    expect(byEnv.exitCode, byEnv.stderr).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.authorization?.endsWith(TOKEN))).toBe(true);
  });

  it('refuses plain http to a host that is not loopback, before any connection', async () => {
    for (const [args, env] of [
      [['--api-url', 'http://example.invalid'], {}],
      [[], { GITHUB_API_URL: 'http://example.invalid/api/v3' }],
    ] as const) {
      const result = await waves(['plan', '--repo', 'acme/shop', '--root', SHOP, ...args], { GITHUB_TOKEN: TOKEN, ...env });
      expect(result.exitCode, result.stderr).toBe(2);
      const line = oneLine(result.stderr);
      expect(line).toMatch(/plain http/);
      // A connection attempt would have failed on the name instead.
      expect(line).not.toMatch(/unreachable|ENOTFOUND|EAI_AGAIN/);
    }
  });

  it('refuses an API URL that is not a URL, or not http(s), with exit code 2', async () => {
    for (const url of ['not a url', 'ftp://127.0.0.1/', 'https://user:pass@127.0.0.1/']) {
      const result = await waves(['plan', '--repo', 'acme/shop', '--root', SHOP, '--api-url', url]);
      expect(result.exitCode, `${url}: ${result.stderr}`).toBe(2);
      expect(oneLine(result.stderr)).toMatch(/^waves: --api-url/);
      expect(result.stderr).not.toContain('pass');
    }
    const env = await waves(['plan', '--repo', 'acme/shop', '--root', SHOP], { GITHUB_API_URL: 'not a url' });
    expect(env.exitCode).toBe(2);
    expect(oneLine(env.stderr)).toMatch(/^waves: GITHUB_API_URL/);
  });
});

describe('repository names', () => {
  it('refuses a --repo with a segment that is only dots, like one with too many slashes, before any request', async () => {
    const server = await fake();
    for (const slug of ['../x', './x', 'a/..', 'a/.', '.../x', 'a/b/../c']) {
      const result = await waves(['plan', '--repo', slug, '--api-url', server.url, '--root', SHOP]);
      expect(result.exitCode, `${slug}: ${result.stderr}`).toBe(2);
      expect(oneLine(result.stderr)).toMatch(/owner\/name/);
    }
    expect(server.requests).toEqual([]);
  });

  it("refuses such a name in the config's defaults.repo and in compare", async () => {
    const server = await fake();
    const repo = await repoWith({ defaults: { repo: '../x' } });
    const fromConfig = await waves(['plan', '--root', repo.root, '--api-url', server.url]);
    expect(fromConfig.exitCode).toBe(2);
    expect(oneLine(fromConfig.stderr)).toMatch(/defaults\.repo/);
    const clean = await repoWith({});
    const baseline = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', clean.root, '--json']);
    expect(baseline.exitCode, baseline.stderr).toBe(0);
    await clean.write({ 'baseline.json': baseline.stdout });
    const before = server.requests.length;
    const compare = await waves(['compare', path.join(clean.root, 'baseline.json'), '--repo', '../x', '--api-url', server.url, '--root', clean.root]);
    expect(compare.exitCode).toBe(2);
    expect(oneLine(compare.stderr)).toMatch(/owner\/name/);
    expect(server.requests.length).toBe(before);
  });
});

describe('servers that do not answer, or answer nonsense', () => {
  it.concurrent('gives up on a server that accepts and never answers: retried, then one line saying it timed out', async () => {
    // Its own server: the shared afterEach would stop it when the concurrent test ends.
    const server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues: ISSUES, faults: [{ match: '/labels', status: 200, hang: true, times: 100 }] }).start();
    const started = Date.now();
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP, '--api-timeout', '300ms']).finally(() => server.stop());
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toMatch(/^waves: GitHub API at 127\.0\.0\.1:\d+ timed out: .*300ms/);
    expect(server.requests.filter((r) => r.url.includes('/labels')).length).toBe(4); // once, then 3 retries
    expect(Date.now() - started).toBeLessThan(45_000);
  }, 60_000);

  it.concurrent('says a host that refuses connections is unreachable, not "(500)"', async () => {
    const port = await closedPort();
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', `http://127.0.0.1:${port}`, '--root', SHOP], { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode).toBe(1);
    const line = oneLine(result.stderr);
    expect(line).toBe(`waves: GitHub API at 127.0.0.1:${port} unreachable: ECONNREFUSED`);
  }, 60_000);

  it('refuses an HTML answer in one line that names the host and quotes none of it', async () => {
    const html = '<!DOCTYPE html>\n<html><body><h1>Corporate SSO</h1><p>Sign in to continue</p></body></html>';
    const server = await fake([{ match: '/labels', status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html }]);
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP]);
    expect(result.exitCode).toBe(1);
    const line = oneLine(result.stderr);
    expect(line).toMatch(/127\.0\.0\.1:\d+/);
    expect(line).toMatch(/labels/);
    expect(line).toMatch(/text\/html/);
    expect(line).not.toMatch(/[<>]|SSO|Sign in|in operator/);
  });

  it('refuses JSON of the wrong shape: an object where a list is expected, an issue without a number', async () => {
    const object = await fake([{ match: '/labels', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ total_count: 1, secret: 'do-not-print-me' }) }]);
    const asObject = await waves(['plan', '--repo', 'acme/shop', '--api-url', object.url, '--root', SHOP]);
    expect(asObject.exitCode).toBe(1);
    const line = oneLine(asObject.stderr);
    expect(line).toMatch(/labels.*list/);
    expect(line).not.toMatch(/do-not-print-me|in operator|Cannot/);

    const items = await fake([{ match: '/issues?', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ number: 'seven', title: 'do-not-print-me' }]) }]);
    const badItem = await waves(['plan', '--repo', 'acme/shop', '--api-url', items.url, '--root', SHOP]);
    expect(badItem.exitCode).toBe(1);
    const itemLine = oneLine(badItem.stderr);
    expect(itemLine).toMatch(/\$\[0\]\.number/);
    expect(itemLine).not.toMatch(/do-not-print-me/);
  });

  it('never prints the body of an error answer', async () => {
    const server = await fake([{ match: '/labels', status: 400, headers: { 'content-type': 'text/html' }, body: '<html><body>internal proxy page secret-detail</body></html>' }]);
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP]);
    expect(result.exitCode).toBe(1);
    const line = oneLine(result.stderr);
    expect(line).toMatch(/\(400\)/);
    expect(line).not.toMatch(/[<>]|secret-detail/);
  });

  it('takes the timeout from --api-timeout or the config, and refuses one that is not a duration', async () => {
    const bad = await waves(['plan', '--repo', 'acme/shop', '--root', SHOP, '--api-timeout', 'soon']);
    expect(bad.exitCode).toBe(2);
    expect(oneLine(bad.stderr)).toMatch(/^waves: --api-timeout/);
    const repo = await repoWith({ defaults: { apiTimeout: 'soon' } });
    const fromConfig = await waves(['plan', '--repo', 'acme/shop', '--root', repo.root]);
    expect(fromConfig.exitCode).toBe(2);
    expect(oneLine(fromConfig.stderr)).toMatch(/defaults\.apiTimeout/);
  });
});

describe('pagination links, huge answers, rate limits and bad ports', () => {
  it('refuses a next-page link to another host before sending anything to it, in one line naming both', async () => {
    const other = await fake();
    const server = await fake([
      { match: '/labels', status: 200, headers: { 'content-type': 'application/json', link: `<${other.url}/repos/acme/shop/labels?page=2>; rel="next"` }, body: '[{"name":"bug"}]' },
    ]);
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP], { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `waves: GitHub API at ${new URL(server.url).host}: a next-page link leads to ${other.url}, another host; refused before sending (the token goes only to ${server.url})`,
    );
    expect(other.requests).toEqual([]);
  });

  it('refuses a next-page link that a URI template turns into another host (an API URL with a path, as GitHub Enterprise has): the token never leaves', async () => {
    const other = await fake();
    const server = await fake([{ match: '/labels', status: 200, headers: { 'content-type': 'application/json', link: `<{x}${other.url}/steal>; rel="next"` }, body: '[{"name":"bug"}]' }]);
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', `${server.url}/api/v3`, '--root', SHOP], { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toBe(`waves: GitHub API at ${new URL(server.url).host}: a request to ${other.url}, another host, refused before sending (the token goes only to ${server.url})`);
    expect(other.requests).toEqual([]);
  });

  it('says a next-page link led to a path that is not there, rather than "repository not found"', async () => {
    const issue = { number: 7, title: 'Fix the cart', body: null, labels: [], state: 'open', created_at: '2026-01-01T00:00:00Z' };
    const server = await fake([{ match: '/issues?', status: 200, headers: { 'content-type': 'application/json', link: '</steal?page=2>; rel="next"' }, body: JSON.stringify([issue]) }]);
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP], { GITHUB_TOKEN: TOKEN });
    expect(server.requests.map((r) => r.url)).toContain('/steal?page=2');
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toBe(`waves: GitHub API at ${new URL(server.url).host}: GET /steal not found (404), a page that a next-page link of the API named; is it a GitHub API?`);
  });

  it('refuses an answer larger than 32 MB without retrying it, and a page of more items than asked', async () => {
    const item = '{"id":1,"name":"label-0000000"},';
    const huge = `[${item.repeat(Math.ceil((33 * 1024 * 1024) / item.length))}{"id":2,"name":"last"}]`;
    const big = await fake([{ match: '/labels', status: 200, headers: { 'content-type': 'application/json' }, body: huge, times: 10 }]);
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', big.url, '--root', SHOP]);
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toBe(`waves: GitHub API at ${new URL(big.url).host}: GET /repos/acme/shop/labels answered more than 32 MB; no page of GitHub's is that large, so it was not read`);
    expect(big.requests.filter((r) => r.url.includes('/labels'))).toHaveLength(1);

    const many = await fake([{ match: '/labels', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.from({ length: 150 }, (_, i) => ({ name: `l${i}` }))) }]);
    const crowded = await waves(['plan', '--repo', 'acme/shop', '--api-url', many.url, '--root', SHOP]);
    expect(crowded.exitCode).toBe(1);
    expect(oneLine(crowded.stderr)).toBe(`waves: GitHub API at ${new URL(many.url).host}: GET /repos/acme/shop/labels answered 150 items where at most 100 were asked; is it a GitHub API?`);
  }, 60_000);

  it('says a primary rate limit it will not wait for in one line', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    const server = await fake([{ match: '/labels', status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, message: 'API rate limit exceeded' }]);
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP]);
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toMatch(/^waves: GitHub primary rate limit at 127\.0\.0\.1:\d+: it asks to wait \d+ s, more than the 120 s allowed; giving up$/);
  });

  it("refuses at once a port fetch will never connect to (fetch's bad ports), from the flag or the environment", async () => {
    const started = Date.now();
    for (const [args, env, where] of [
      [['--api-url', 'http://127.0.0.1:1'], {}, '--api-url'],
      [[], { GITHUB_API_URL: 'http://127.0.0.1:6000' }, 'GITHUB_API_URL'],
    ] as const) {
      const result = await waves(['plan', '--repo', 'acme/shop', '--root', SHOP, ...args], env);
      expect(result.exitCode, where).toBe(2);
      expect(oneLine(result.stderr)).toMatch(new RegExp(`^waves: ${where}: port \\d+ is one that fetch never connects to \\(a "bad port"\\); use another$`));
    }
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('issue text from GitHub', () => {
  it('strips NUL bytes from titles, bodies and labels: the plan and the dry run work, and no argv carries one', async () => {
    const server = await fake([], [{ number: 7, title: 'Fix\u0000 the cart', body: 'Touch `src/a.ts`\u0000 only', labels: ['bug\u0000'], created_at: '2026-01-01T00:00:00Z' }]);
    const repo = await repoWith({});
    const plan = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', repo.root, '--json']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('\\u0000');
    expect(JSON.parse(plan.stdout).waves[0].issues[0].title).toBe('Fix the cart');
    const dry = await waves(['dispatch', '--dry-run', '--json', '--repo', 'acme/shop', '--api-url', server.url, '--root', repo.root]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const command: string[] = JSON.parse(dry.stdout).waves[0].issues[0].command;
    expect(command.length).toBeGreaterThan(0);
    expect(command.some((arg) => arg.includes('\0'))).toBe(false);
  });
});
