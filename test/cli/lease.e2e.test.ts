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
    expect((await waves(['lease', 'renew', lease.id, '--ttl', '2h', '--holder', 'agent-7'], repo.root)).exitCode).toBe(0);
    expect((await waves(['lease', 'release', lease.id, '--holder', 'agent-7'], repo.root)).exitCode).toBe(0);
    expect((await waves(['lease', 'renew', lease.id, '--holder', 'agent-7'], repo.root)).exitCode).toBe(3);
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

  it('refuses a holder that would hold nothing — empty, blank, a control character, too long — from --holder or leases.holder, with one line (exit 2; red team 4 D2)', async () => {
    repo = await TempRepo.create({ 'src/a.ts': '' });
    for (const holder of ['', '   ', 'a\nb', 'x'.repeat(201)]) {
      const result = await waves(['lease', 'acquire', 'src/a.ts', '--holder', holder], repo.root);
      expect(result.exitCode, JSON.stringify(holder)).toBe(2);
      expect(result.stderr.trim().split('\n'), JSON.stringify(holder)).toEqual([expect.stringMatching(/^waves: lease: --holder .* (must not be empty|holds a control character|is longer than 200 characters)/)]);
    }
    await repo.write({ 'waves.config.json': JSON.stringify({ leases: { holder: '' } }) });
    const config = await waves(['lease', 'acquire', 'src/a.ts'], repo.root);
    expect(config.exitCode).toBe(2);
    expect(config.stderr.trim().split('\n')).toEqual([expect.stringMatching(/leases\.holder.*must not be empty/)]);
    expect((await waves(['lease', 'list', '--json', '--holder', 'bob'], repo.root)).exitCode).toBe(2);
    await repo.write({ 'waves.config.json': '{}' });
    expect((await waves(['lease', 'list', '--json'], repo.root)).stdout.trim()).toBe('[]');
  });

  it("releases or renews another holder's lease only with its holder or --force: one line, exit 2, and the lease stands (red team 4 D11)", async () => {
    repo = await TempRepo.create({ 'src/a.ts': '' });
    const lease = JSON.parse((await waves(['lease', 'acquire', 'src', '--holder', 'alice', '--json'], repo.root)).stdout);
    for (const [action, ...flags] of [['release', '--holder', 'bob'], ['renew', '--holder', 'bob'], ['release']] as const) {
      const refused = await waves(['lease', action, lease.id, ...flags], repo.root);
      expect(refused.exitCode, `${action} ${flags.join(' ')}`).toBe(2);
      const by = flags.length > 0 ? 'bob' : '\\S+@\\S+'; // the default: user@host
      expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^waves: lease ${action}: ${lease.id} \\(src\\) is held by alice, not ${by}; give its holder with --holder, or --force to ${action} another holder's lease$`))]);
    }
    expect((await waves(['lease', 'acquire', 'src/a.ts', '--holder', 'bob'], repo.root)).exitCode).toBe(3);
    expect((await waves(['lease', 'renew', lease.id, '--holder', 'alice'], repo.root)).exitCode).toBe(0);
    expect((await waves(['lease', 'release', lease.id, '--holder', 'bob', '--force'], repo.root)).exitCode).toBe(0);
    expect((await waves(['lease', 'acquire', 'src/a.ts', '--holder', 'bob'], repo.root)).exitCode).toBe(0);
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

  it('reports and skips a forged journal line whose time to live or date no clock can hold, and every command still works', async () => {
    repo = await TempRepo.create({ 'src/a.ts': '', 'issues.json': JSON.stringify([{ number: 1, title: 'a', body: '`src/a.ts`', labels: [] }]) });
    const now = new Date().toISOString();
    const forged = [
      { v: 1, op: 'acquire', id: 'l-x1', lane: 'src', holder: 'm', at: now, ttlMs: 9e15 },
      { v: 1, op: 'acquire', id: 'l-x2', lane: 'src', holder: 'm', at: '-271821-04-20T00:00:00.000Z', ttlMs: 8.64e15 },
      { v: 1, op: 'acquire', id: 'l-x3', lane: 'src', holder: 'm', at: 'not a date', ttlMs: 3_600_000 },
      { v: 1, op: 'acquire', id: 'l-x4', lane: 'src', holder: 'm', at: now, ttlMs: 2 ** 31 },
    ];
    await repo.write({ '.waves/leases.jsonl': forged.map((e) => `${JSON.stringify(e)}\n`).join('') });
    const list = await waves(['lease', 'list', '--json'], repo.root);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
    expect(list.stderr.trim().split('\n')).toEqual([1, 2, 3, 4].map((n) => expect.stringMatching(new RegExp(`line ${n}: not a lease event .*skipped`))));
    const plan = await waves(['plan', '--from-issues', 'issues.json', '--json'], repo.root);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).held).toEqual([]);
    expect((await waves(['lease', 'acquire', 'src/a.ts', '--holder', 'bob'], repo.root)).exitCode).toBe(0);
  });

  it('compacts a journal grown past 64 MB with waves lease gc, keeping its live lease, after every command said so in one line (red team 4 D3)', async () => {
    repo = await TempRepo.create({ 'src/a.ts': '' });
    const now = Date.now();
    const line = (event: Record<string, unknown>) => `${JSON.stringify(event)}\n`;
    const chunk = Array.from({ length: 1000 }, (_, i) => line({ v: 1, op: 'acquire', id: `l-old-${i}`, lane: 'src', holder: 'ci@build/resolve-1-20261129T120000000Z', at: new Date(now - 7_200_000).toISOString(), ttlMs: 60_000 })).join('');
    const live = line({ v: 1, op: 'acquire', id: 'l-live', lane: 'src/a.ts', holder: 'alice', at: new Date(now).toISOString(), ttlMs: 3_600_000 });
    await repo.write({ '.waves/leases.jsonl': live + chunk.repeat(Math.ceil((65 * 1024 * 1024) / chunk.length)) });
    const list = await waves(['lease', 'list'], repo.root);
    expect(list.exitCode).toBe(2);
    expect(list.stderr.trim().split('\n')).toEqual([expect.stringMatching(/is larger than 64 MB.*; waves lease gc compacts it to its live leases$/)]);
    const gc = await waves(['lease', 'gc'], repo.root);
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(gc.stdout).toMatch(/^compacted \.waves\/leases\.jsonl from 65\.\d MB to \d+ B: 1 live lease\(s\) kept$/);
    const after = await waves(['lease', 'list', '--json'], repo.root);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).map((l: { id: string; holder: string }) => [l.id, l.holder])).toEqual([['l-live', 'alice']]);
    expect((await waves(['lease', 'acquire', 'src', '--holder', 'bob'], repo.root)).exitCode).toBe(3);
    expect((await waves(['lease', 'gc'], repo.root)).stdout).toMatch(/^nothing to compact in \.waves\/leases\.jsonl \(\d+ B, 1 live lease\(s\)\)$/);
  });

  it('refuses a lease time longer than 24.8 days, from --ttl or from leases.ttl, with one line naming it (exit 2)', async () => {
    repo = await TempRepo.create({ 'src/a.ts': '' });
    const flag = await waves(['lease', 'acquire', 'src', '--ttl', '1000h'], repo.root);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^waves: --ttl: .*24\.8 days.*"1000h"/)]);
    await repo.write({ 'waves.config.json': JSON.stringify({ leases: { ttl: '8000h' } }) });
    const config = await waves(['lease', 'acquire', 'src'], repo.root);
    expect(config.exitCode).toBe(2);
    expect(config.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^waves: config leases\.ttl: .*24\.8 days.*"8000h"/)]);
    expect((await waves(['lease', 'acquire', 'src', '--ttl', '24d'], repo.root)).exitCode).toBe(0);
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
