import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { TempRepo } from '../helpers/temp-repo.js';

const BIN = fileURLToPath(new URL('../../packages/cli/bin/waves.js', import.meta.url));
const waves = (args: string[], cwd: string) => execa('node', [BIN, ...args], { cwd, reject: false, stdin: 'ignore' });

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.dispose();
  repo = undefined;
});

describe('waves lease', () => {
  it('acquires, refuses with exit code 3, lists, renews and releases, with JSON answers', async () => {
    repo = await TempRepo.create({ 'package.json': '{"name":"r","workspaces":["packages/*"]}', 'packages/cli/package.json': '{"name":"@r/cli"}', 'packages/cli/src/a.ts': '' });
    const acquired = await waves(['lease', 'acquire', 'cli', '--holder', 'agent-7', '--ttl', '30m', '--json'], repo.root);
    expect(acquired.exitCode).toBe(0);
    const lease = JSON.parse(acquired.stdout);
    expect(lease).toMatchObject({ status: 'acquired', lane: 'packages/cli', holder: 'agent-7' });
    const refused = await waves(['lease', 'acquire', 'packages/cli/src/a.ts', '--holder', 'me', '--json'], repo.root);
    expect(refused.exitCode).toBe(3);
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 'refused', holder: 'agent-7', until: lease.until });
    const list = await waves(['lease', 'list'], repo.root);
    expect(list.stdout).toContain('packages/cli');
    expect((await waves(['lease', 'renew', lease.id, '--ttl', '2h'], repo.root)).exitCode).toBe(0);
    expect((await waves(['lease', 'release', lease.id], repo.root)).exitCode).toBe(0);
    expect((await waves(['lease', 'renew', lease.id], repo.root)).exitCode).toBe(3);
    expect((await waves(['lease', 'acquire', 'packages/cli/src/a.ts', '--holder', 'me'], repo.root)).exitCode).toBe(0);
  });

  it('rejects bad input with exit code 2', async () => {
    repo = await TempRepo.create({ 'a.ts': '' });
    for (const args of [['lease', 'acquire', '../etc'], ['lease', 'acquire', 'a', '--ttl', 'soon'], ['lease', 'release', 'l-nope'], ['lease', 'frobnicate'], ['lease', 'acquire']]) {
      const result = await waves(args, repo.root);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('refuses every spelling of a path inside a held lease (exit 3)', async () => {
    repo = await TempRepo.create({ 'packages/payments/src/stripe.ts': '', 'packages/payments/src/refunds.ts': '' });
    expect((await waves(['lease', 'acquire', 'packages/payments', '--holder', 'alice'], repo.root)).exitCode).toBe(0);
    for (const lane of ['packages//payments/src/stripe.ts', 'packages/./payments/src/refunds.ts', 'packages\\payments']) {
      const result = await waves(['lease', 'acquire', lane, '--holder', 'bob', '--json'], repo.root);
      expect(result.exitCode, lane).toBe(3);
      expect(JSON.parse(result.stdout), lane).toMatchObject({ status: 'refused', holder: 'alice', heldLane: 'packages/payments' });
    }
  });

  it('refuses an empty lane, / and paths outside the repository with one line (exit 2), never taking the whole repository', async () => {
    repo = await TempRepo.create({ 'a.ts': '' });
    for (const lane of ['', '/', '../x', '/etc', '~/x', 'C:\\x']) {
      const result = await waves(['lease', 'acquire', lane, '--holder', 'bob'], repo.root);
      expect(result.exitCode, JSON.stringify(lane)).toBe(2);
      expect(result.stderr.trim().split('\n'), JSON.stringify(lane)).toHaveLength(1);
    }
    expect((await waves(['lease', 'list', '--json'], repo.root)).stdout.trim()).toBe('[]');
  });

  it('lets no lease event dated in the future hold a lane', async () => {
    repo = await TempRepo.create({ 'src/a.ts': '' });
    await repo.write({ '.waves/leases.jsonl': `${JSON.stringify({ v: 1, op: 'acquire', id: 'l-future', lane: 'src', holder: 'mallory', at: '2100-01-01T00:00:00.000Z', ttlMs: 3_600_000 })}\n` });
    expect((await waves(['lease', 'list', '--json'], repo.root)).stdout.trim()).toBe('[]');
    expect((await waves(['lease', 'acquire', 'src/a.ts', '--holder', 'bob'], repo.root)).exitCode).toBe(0);
  });

  it('holds back an issue of waves plan whose scope another holder leases', async () => {
    repo = await TempRepo.create({
      'src/a.ts': '',
      'src/b.ts': '',
      'issues.json': JSON.stringify([
        { number: 1, title: 'a', body: '`src/a.ts`', labels: [] },
        { number: 2, title: 'b', body: '`src/b.ts`', labels: [] },
      ]),
    });
    await waves(['lease', 'acquire', 'src/a.ts', '--holder', 'someone-else'], repo.root);
    const plan = JSON.parse((await waves(['plan', '--from-issues', 'issues.json', '--json'], repo.root)).stdout);
    expect(plan.held).toEqual([
      {
        number: 1,
        title: 'a',
        url: null,
        lease: { id: expect.any(String), lane: 'src/a.ts', holder: 'someone-else', until: expect.any(String) },
        reason: expect.stringMatching(/^its scope overlaps src\/a\.ts, leased by someone-else until /),
      },
    ]);
    expect(plan.waves[0].issues.map((i: { number: number }) => i.number)).toEqual([2]);
  });
});
