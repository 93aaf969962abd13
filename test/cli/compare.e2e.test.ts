/**
 * `waves compare BASELINE.json`: a saved plan against the backlog after some work — in an issues
 * file and on a fake GitHub API.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Comparison } from '@waves/planner';
import { ROOT, waves } from '../helpers/example-repo.js';
import { FakeGithub, toFakeIssue, type FakeIssue, type IssuesFileEntry } from '../helpers/fake-github.js';

const SHOP = path.join(ROOT, 'examples/shop');
let dir: string;
let server: FakeGithub | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'waves-compare-'));
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

type FileIssue = IssuesFileEntry;

async function exampleBacklog(): Promise<FileIssue[]> {
  return JSON.parse(await readFile(path.join(ROOT, 'examples/backlog.json'), 'utf8')) as FileIssue[];
}

/** `waves plan --json` of the example, saved as the baseline. */
async function saveBaseline(sourceArgs: string[], env: Record<string, string> = {}): Promise<string> {
  const plan = await waves(['plan', '--json', '--root', SHOP, '--no-cache', ...sourceArgs], ROOT, env);
  expect(plan.exitCode, plan.stderr).toBe(0);
  const file = path.join(dir, 'baseline.json');
  await writeFile(file, plan.stdout);
  return file;
}

describe('waves compare', () => {
  it('reports the closed and gone issues, progress, where the rest stand, remaining waves and new issues (issues file)', async () => {
    const backlogFile = path.join(dir, 'backlog.json');
    await writeFile(backlogFile, JSON.stringify(await exampleBacklog()));
    const baselineFile = await saveBaseline(['--from-issues', backlogFile]);
    const baseline = JSON.parse(await readFile(baselineFile, 'utf8'));
    expect(baseline.waves.map((w: { issues: { number: number }[] }) => w.issues.map((i) => i.number))).toEqual([[101, 102, 105], [103, 113]]);

    // Work happened: #101 closed, #105 no longer listed (gh issue list shows open issues), a new
    // issue was opened after the baseline, an old one that the baseline never saw stays old.
    const now = (await exampleBacklog()).filter((i) => i.number !== 105);
    now.find((i) => i.number === 101)!.state = 'CLOSED';
    now.push({ number: 130, title: 'Totals round wrong', body: '`packages/core/src/money.ts`', labels: [], state: 'OPEN', createdAt: '2099-01-01T00:00:00Z', url: null });
    await writeFile(backlogFile, JSON.stringify(now));

    const result = await waves(['compare', baselineFile, '--from-issues', backlogFile, '--root', SHOP, '--no-cache', '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const c = JSON.parse(result.stdout) as Comparison;
    expect(c.progress).toEqual({ planned: 5, closed: 2, percent: 40 });
    expect(c.closed.map((i) => [i.number, i.how, i.baselineWave])).toEqual([
      [101, 'closed', 1],
      [105, 'gone', 1],
    ]);
    // #103 no longer conflicts with the closed #101 and #113 no longer waits for #105: one wave.
    expect(c.open.map((i) => [i.number, i.baselineWave, i.now])).toEqual([
      [102, 1, { bucket: 'wave', wave: 1, reason: null }],
      [103, 2, { bucket: 'wave', wave: 1, reason: null }],
      [113, 2, { bucket: 'wave', wave: 1, reason: null }],
    ]);
    expect(c.remaining).toEqual({ waves: 1, plan: [{ index: 1, kind: 'parallel', issues: [102, 103, 113] }] });
    expect(c.new.map((i) => i.number)).toEqual([130]);

    const text = await waves(['compare', baselineFile, '--from-issues', backlogFile, '--root', SHOP, '--no-cache']);
    expect(text.stdout).toContain('Progress: 2 of 5 planned issue(s) closed (40%)');
    expect(text.stdout).toContain('#105 Cart total ignores the item currency — no longer in the backlog');
    expect(text.stdout).toContain('#103 Refund partial amounts — was wave 2, now wave 1');
    expect(text.stdout).toContain('#130 Totals round wrong (opened 2099-01-01T00:00:00Z)');
  }, 60_000);

  it('reports 100% and no remaining wave once every planned issue is closed', async () => {
    const backlogFile = path.join(dir, 'backlog.json');
    await writeFile(backlogFile, JSON.stringify(await exampleBacklog()));
    const baselineFile = await saveBaseline(['--from-issues', backlogFile]);
    const done = (await exampleBacklog()).map((i) => ([101, 102, 103, 105, 113].includes(i.number) ? { ...i, state: 'CLOSED' } : i));
    await writeFile(backlogFile, JSON.stringify(done));
    const all = JSON.parse((await waves(['compare', baselineFile, '--from-issues', backlogFile, '--root', SHOP, '--no-cache', '--json'])).stdout) as Comparison;
    expect(all.progress.percent).toBe(100);
    expect(all.remaining.waves).toBe(0);
  }, 60_000);

  it('tells closed from gone on GitHub and finds the issues opened since the baseline', async () => {
    const toFake = (issues: FileIssue[]): FakeIssue[] => issues.map(toFakeIssue);
    const env = { GITHUB_TOKEN: '', GH_TOKEN: '', GITHUB_API_URL: '' };
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues: toFake(await exampleBacklog()) }).start();
    const baselineFile = await saveBaseline(['--repo', 'acme/shop', '--api-url', server.url], env);
    await server.stop();

    const later = (await exampleBacklog()).filter((i) => i.number !== 105);
    later.find((i) => i.number === 101)!.state = 'CLOSED';
    const issues = toFake(later);
    issues.push({ number: 131, title: 'Opened later', body: '`scripts/seed.ts`', created_at: '2099-01-02T00:00:00Z' });
    server = await new FakeGithub({ owner: 'acme', repo: 'shop', issues }).start();
    const result = await waves(['compare', baselineFile, '--repo', 'acme/shop', '--api-url', server.url, '--root', SHOP, '--no-cache', '--json'], ROOT, env);
    expect(result.exitCode, result.stderr).toBe(0);
    const c = JSON.parse(result.stdout) as Comparison;
    expect(c.closed.map((i) => [i.number, i.how])).toEqual([
      [101, 'closed'],
      [105, 'gone'],
    ]);
    expect(c.new.map((i) => i.number)).toEqual([131]);
    // The closed and the gone issue were each asked for by number.
    expect(server.requests.map((r) => r.url)).toEqual(expect.arrayContaining(['/repos/acme/shop/issues/101', '/repos/acme/shop/issues/105']));
  }, 60_000);

  it('rejects a baseline that is not a saved plan with exit code 2', async () => {
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ waves: [] }));
    const result = await waves(['compare', bad, '--from-issues', 'examples/backlog.json', '--root', SHOP]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/bad\.json: not a plan saved by waves plan --json \(\$\.schemaVersion/);
    expect((await waves(['compare'])).exitCode).toBe(2);
    expect((await waves(['compare', path.join(dir, 'missing.json'), '--from-issues', 'examples/backlog.json'])).stderr).toMatch(/missing\.json: cannot read the baseline \(ENOENT\)/);
  }, 60_000);
});
