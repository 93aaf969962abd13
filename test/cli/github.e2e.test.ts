import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeGithub, toFakeIssue, type FakeIssue, type IssuesFileEntry } from '../helpers/fake-github.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');
const SHOP = path.join(ROOT, 'examples/shop');
const TOKEN = 'ghp_secret0123456789abcdefTOKEN';

/** The example backlog as the GitHub REST API serves it (pull requests included). */
async function exampleIssues(): Promise<FakeIssue[]> {
  const file = JSON.parse(await readFile(path.join(ROOT, 'examples/backlog.json'), 'utf8')) as IssuesFileEntry[];
  const issues: FakeIssue[] = file.map(toFakeIssue);
  // Pull requests older than every issue, so that the first pages hold no issue at all.
  for (let n = 500; n < 650; n++) issues.push({ number: n, title: `PR ${n}`, body: '`package.json`', labels: [], created_at: '2020-01-01T00:00:00Z', pull_request: true });
  // Enough filler to need several pages of 100.
  for (let n = 1000; n < 1250; n++) issues.push({ number: n, title: `Filler ${n}`, body: 'vague', labels: [], created_at: `2026-11-0${1 + (n % 9)}T00:00:00Z`, ...(n % 7 === 0 ? { pull_request: true } : {}) });
  return issues;
}

function waves(args: string[], env: Record<string, string> = {}) {
  return execa('node', [BIN, ...args], { cwd: ROOT, reject: false, stdin: 'ignore', env: { GITHUB_TOKEN: '', GH_TOKEN: '', GITHUB_API_URL: '', ...env }, extendEnv: true });
}

let server: FakeGithub | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('waves plan --repo against a fake GitHub API', () => {
  it('prints no part of the token when a server echoes it in a message cut to a short line (red team 4)', async () => {
    const long = 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef';
    for (const pad of [0, 60, 120]) {
      server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues: [], token: long, faults: [{ match: '/labels', status: 422, message: `${'-'.repeat(pad)}bad request with token ${long}` }] }).start();
      const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP], { GITHUB_TOKEN: long });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/GitHub API failed \(422\)/);
      expect(result.stderr, `pad ${pad}`).not.toContain(long.slice(0, 12));
      await server.stop();
      server = undefined;
    }
  }, 60_000);

  it('prints no part of the token when a server spells it out in pieces, between control or invisible characters (red team L1)', async () => {
    const long = 'ghp_SECRETtoken0123456789abcdefABCDEF0123';
    const pieces = (long.match(/.{1,7}/g) ?? []).join('\u0007');
    for (const message of [`x ${pieces}`, [...long].join('\u200b'), [...long].join(' '), [...long].join(' \u200b')]) {
      server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues: [], token: long, faults: [{ match: '/labels', status: 422, message }] }).start();
      const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP], { GITHUB_TOKEN: long });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/GitHub API failed \(422\).*\[REDACTED\]/);
      const spelled = result.stderr.replace(/\\u[0-9a-f]{4}|[^A-Za-z0-9_]/g, '');
      for (let k = 0; k + 8 <= long.length; k++) expect(spelled, JSON.stringify(message)).not.toContain(long.slice(k, k + 8));
      await server.stop();
      server = undefined;
    }
  }, 60_000);

  it('prints no part of the token when a server serves issues spelling it with tabs, line breaks or backspaces, which --json writes as letter escapes (red team M1)', async () => {
    const long = 'ghp_SECRETtoken0123456789abcdefABCDEF0123';
    const issues: FakeIssue[] = ['\t', '\n', '\r', '\b', '\f'].map((sep, i) => ({ number: i + 1, title: `Fix ${[...long].join(sep)}`, body: [...long].join(sep), labels: [], created_at: `2026-11-0${i + 1}T00:00:00Z` }));
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues, token: long }).start();
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP, '--json'], { GITHUB_TOKEN: long });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).triage).toHaveLength(5);
    const spelled = (result.stdout + result.stderr).replace(/\\[tnrbf]|\\u[0-9a-fA-F]{4}|[^A-Za-z0-9_]/g, '');
    for (let k = 0; k + 8 <= long.length; k++) expect(spelled).not.toContain(long.slice(k, k + 8));
  }, 60_000);

  it('looks up a bounded number of dependencies an issue names, and only issue numbers (red team 4)', async () => {
    const list = Array.from({ length: 9_000 }, (_, i) => `#${10_000 + i}`).join(', ');
    const issues: FakeIssue[] = [1, 2, 3, 4, 5].map((n) => ({ number: n, title: `Issue ${n}`, body: `Depends on ${list}\nBlocked by #0 and #99999999999999999999999.`, labels: [], created_at: `2026-11-0${n}T00:00:00Z` }));
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues, token: TOKEN }).start();
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP, '--top', '5', '--json'], { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode, result.stderr).toBe(0);
    const lookups = server.requests.filter((r) => /\/issues\/[^/?]+$/.test(r.url));
    // 50 an issue, and the five issues name the same 50: 50 look-ups, none of #0 or a number past 2^53.
    expect(lookups.length).toBe(50);
    expect(lookups.some((r) => /\/issues\/(?:0|1e|Infinity|99999)/.test(r.url))).toBe(false);
    const plan = JSON.parse(result.stdout);
    const entries = [...plan.waves.flatMap((w: { issues: unknown[] }) => w.issues), ...plan.triage, ...plan.deferred, ...plan.subdivide, ...plan.held] as { number: number; dependsOn?: number[] }[];
    for (const entry of entries) expect((entry.dependsOn ?? []).length).toBeLessThanOrEqual(50);
  }, 120_000);

  it("looks the dependencies up in turns across the issues: others' long lists never push an issue's own dependency out (red team E14)", async () => {
    // Four issues each name 50 low numbers (200, the cap of one command); #1 names one, open and on no page read.
    const filler = (from: number) => Array.from({ length: 50 }, (_, i) => `#${from + i}`).join(', ');
    const issues: FakeIssue[] = [
      { number: 1, title: 'Fix the cart total', body: 'Depends on #900. Touches `packages/web/src/components/CartView.tsx`.', labels: [], created_at: '2026-11-01T00:00:00Z' },
      ...[2, 3, 4, 5].map((n, k) => ({ number: n, title: `Issue ${n}`, body: `Depends on ${filler(10 + 50 * k)}`, labels: [], created_at: `2026-11-0${n}T00:00:00Z` })),
      // Enough newer issues that #900, the newest, is on a page the plan never reads.
      ...Array.from({ length: 120 }, (_, i) => ({ number: 1000 + i, title: `Filler ${i}`, body: 'vague', labels: [], created_at: '2026-11-10T00:00:00Z' })),
      { number: 900, title: 'Cart model first', body: '`packages/core/src/cart.ts`', labels: [], created_at: '2026-11-20T00:00:00Z' },
    ];
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues, token: TOKEN }).start();
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP, '--top', '5', '--json'], { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode, result.stderr).toBe(0);
    const lookups = server.requests.filter((r) => /\/issues\/\d+$/.test(r.url));
    expect(lookups.length).toBe(200);
    expect(lookups.some((r) => r.url.endsWith('/issues/900'))).toBe(true);
    expect(result.stderr).toMatch(/the selected issues name 201 dependencies that were not read; 200 are looked up, each issue's in turn, and the other 1 \(named by #\d\) are not in the backlog, and count as done/);
    const plan = JSON.parse(result.stdout) as { waves: { issues: { number: number }[] }[]; deferred: { number: number; reason: string }[] };
    // #1 waits for #900, open: never in a wave of this plan.
    expect(plan.waves.flatMap((w) => w.issues.map((i) => i.number))).not.toContain(1);
  }, 120_000);

  it('gives the same plan as the same issues in a file, through pagination, pull requests, a 502 and a secondary rate limit', async () => {
    server = await new FakeGithub({
      owner: 'acme',
      repo: 'shop',
      issues: await exampleIssues(),
      token: TOKEN,
      faults: [
        { match: '/issues?', status: 502, message: 'Bad Gateway' },
        { match: '/labels', status: 403, headers: { 'retry-after': '1' }, message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
      ],
    }).start();
    const fromGithub = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP, '--top', '12', '--json'], { GITHUB_TOKEN: TOKEN });
    expect(fromGithub.stderr).toMatch(/secondary rate limit.*waiting 1 s/);
    expect(fromGithub.exitCode, fromGithub.stderr).toBe(0);
    const fromFile = await waves(['plan', '--from-issues', path.join(ROOT, 'examples/backlog.json'), '--root', SHOP, '--top', '12', '--json']);
    const strip = (text: string) => ({ ...JSON.parse(text), generatedAt: null });
    expect(strip(fromGithub.stdout)).toEqual(strip(fromFile.stdout));
    // Pages were followed, and the token went out in the header only.
    expect(server.requests.some((r) => r.url.includes('page=2'))).toBe(true);
    expect(server.requests.every((r) => r.authorization?.endsWith(TOKEN))).toBe(true);
    expect(fromGithub.stdout + fromGithub.stderr).not.toContain(TOKEN);
  }, 60_000);

  it('reads a bounded number of pages for the top asked', async () => {
    const issues = await exampleIssues();
    for (let n = 2000; n < 2600; n++) issues.push({ number: n, title: `Old P0 ${n}`, body: '`README.md`', labels: ['P0'], created_at: '2020-01-01T00:00:00Z' });
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues }).start();
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP, '--top', '5', '--json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).summary.evaluated).toBe(5);
    const issuePages = server.requests.filter((r) => /\/issues\?/.test(r.url));
    expect(issuePages.length).toBeLessThanOrEqual(3); // all 1,000 open items would be 10 pages
  });

  it('filters by label, milestone and assignee', async () => {
    const issues: FakeIssue[] = [
      { number: 1, title: 'a', body: '`README.md`', labels: ['bug', 'P1'], created_at: '2026-01-01T00:00:00Z', milestone: { number: 3, title: 'v1' }, assignees: ['ana'] },
      { number: 2, title: 'b', body: '`docs/architecture.md`', labels: ['bug'], created_at: '2026-01-02T00:00:00Z', milestone: { number: 3, title: 'v1' } },
      { number: 3, title: 'c', body: '`scripts/seed.ts`', labels: ['P1'], created_at: '2026-01-03T00:00:00Z', assignees: ['ana'] },
    ];
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues }).start();
    const numbers = async (args: string[]) => {
      const r = await waves(['plan', '--repo', 'acme/shop', '--api-url', server!.url, '--root', SHOP, '--json', ...args]);
      expect(r.exitCode, r.stderr).toBe(0);
      const plan = JSON.parse(r.stdout);
      return plan.waves.flatMap((w: { issues: { number: number }[] }) => w.issues.map((i) => i.number)).sort();
    };
    expect(await numbers(['--label', 'bug'])).toEqual([1, 2]);
    expect(await numbers(['--label', 'bug', '--label', 'P1'])).toEqual([1]);
    expect(await numbers(['--milestone', 'v1'])).toEqual([1, 2]);
    expect(await numbers(['--assignee', 'ana'])).toEqual([1, 3]);
  });

  it('says GitHub rejected the token, with exit code 2 and without the token', async () => {
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues: [], token: 'the-right-one' }).start();
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP], { GITHUB_TOKEN: TOKEN });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe('waves: GitHub rejected the token (401): check GITHUB_TOKEN or GH_TOKEN');
    const debug = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP, '--debug'], { GITHUB_TOKEN: TOKEN });
    expect(debug.stderr).not.toContain(TOKEN);
  });

  it('says the repository is not found, with exit code 2', async () => {
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues: [] }).start();
    const result = await waves(['plan', '--repo', 'acme/nope', '--api-url', server.url, '--root', SHOP], { GH_TOKEN: TOKEN });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe('waves: repository acme/nope not found or not visible with this token (404)');
  });

  it('gives up on a server that keeps failing, with a clear error', async () => {
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues: [], faults: [{ match: '/labels', status: 503, times: 100 }] }).start();
    const result = await waves(['plan', '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim()).toMatch(/^waves: GitHub API failed \(503\)/);
  }, 60_000);

  it('takes the repository from the origin remote and the API from GITHUB_API_URL', async () => {
    const { TempRepo } = await import('../helpers/temp-repo.js');
    const repo = await TempRepo.create({ 'src/a.ts': 'export const a = 1;\n' });
    try {
      await repo.git('remote', 'add', 'origin', 'git@github.com:acme/shop.git');
      server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues: [{ number: 7, title: 'x', body: '`src/a.ts`', created_at: '2026-01-01T00:00:00Z' }] }).start();
      const result = await waves(['plan', '--root', repo.root, '--json'], { GITHUB_API_URL: server.url });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).waves[0].issues[0].number).toBe(7);
    } finally {
      await repo.dispose();
    }
  });
});
