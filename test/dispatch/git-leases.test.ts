/**
 * The git lease backend against a bare repository standing for the remote: all or nothing,
 * refusals, expiry and takeover with the clock-skew margin, fencing tokens, a remote out of
 * reach, transports refused, and random interleavings of several clients checked against a model.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cloneOfHolder, cloneTag, fenceProblem, gitLeaseBackend, leasesByRun, releaseOwnLeases, LeaseRemoteError, openLeaseBackend, remoteUrlProblem, resolveLeaseStore, TableLeaseSchema, type LeaseBackend } from '@waves/dispatch';
import { lanesOverlap } from '@waves/planner';
import { LeaseRemote, overlapIn } from '../helpers/lease-remote.js';

let remote: LeaseRemote | null = null;
afterEach(async () => {
  await remote?.dispose();
  remote = null;
});

const clockAt = (start: number) => {
  const clock = { ms: start, now: () => new Date(clock.ms) };
  return clock;
};

async function setUp(skewMs = 1_000) {
  remote = await LeaseRemote.create();
  const clock = clockAt(Date.parse('2026-12-01T10:00:00.000Z'));
  const open = (store = 'a'): LeaseBackend =>
    gitLeaseBackend({ url: remote!.bare, remoteName: 'origin', ref: 'refs/waves/leases', skewMs, now: clock.now, storeDir: path.join(remote!.dir, `store-${store}.git`) });
  return { clock, open };
}

describe('the git lease backend', () => {
  it('keeps apart two clones whose runs of one issue start in the same millisecond: never both granted, never released by the other', async () => {
    const { open } = await setUp();
    const laptop = await remote!.clone('laptop');
    const ci = await remote!.clone('ci');
    const [a, b] = [await cloneTag(laptop), await cloneTag(ci)];
    expect(a).not.toBe(b);
    // The same user on the same host, the same run id: only the clone tells them apart.
    const run = 'resolve-101-20261201T100000000Z';
    const first = open('laptop');
    const second = open('ci');
    expect((await first.acquire(['src/a.ts'], { holder: `me@host/${a}/${run}`, ttlMs: 60_000 }))[0]).toMatchObject({ status: 'acquired' });
    expect((await second.acquire(['src/a.ts'], { holder: `me@host/${b}/${run}`, ttlMs: 60_000 }))[0]).toMatchObject({ status: 'refused', holder: `me@host/${a}/${run}` });
    // The second clone cleaning up after its run (a stop, a reap) leaves the first's lease alone.
    expect(await releaseOwnLeases(second, run, b)).toEqual([]);
    const live = (await second.list()).leases;
    expect(live.map((l) => cloneOfHolder(l.holder))).toEqual([a]);
    expect([...leasesByRun(live, b).keys()]).toEqual([]);
    expect([...leasesByRun(live, a).keys()]).toEqual([run]);
    expect((await releaseOwnLeases(first, run, a)).map((l) => l.lane)).toEqual(['src/a.ts']);
    // A run-shaped name without a clone (a person's lease, an older waves's run) is no clone's.
    expect((await first.acquire(['src/b.ts'], { holder: `alice/${run}`, ttlMs: 60_000 }))[0]).toMatchObject({ status: 'acquired' });
    expect(await releaseOwnLeases(first, run, a)).toEqual([]);
    expect([...leasesByRun((await first.list()).leases, a).keys()]).toEqual([]);
    // A linked worktree keeps its own run records: it is a clone of its own.
    const linked = path.join(remote!.dir, 'laptop-linked');
    await execa('git', ['-C', laptop, 'worktree', 'add', '-q', '--detach', linked]);
    expect(await cloneTag(linked)).not.toBe(a);
    await mkdir(path.join(laptop, 'sub'), { recursive: true });
    expect(await cloneTag(path.join(laptop, 'sub'))).toBe(a);
    // Containers with one fixed host name and one checkout path: the random identity each clone's
    // first dispatch writes into its git directory tells them apart, and it stays.
    const made = await cloneTag(laptop, { create: true });
    expect(await cloneTag(laptop)).toBe(made);
    expect(await cloneTag(laptop, { create: true })).toBe(made);
    await rename(laptop, `${laptop}.moved`);
    await execa('git', ['clone', '-q', remote!.bare, laptop]);
    expect(await cloneTag(laptop)).toBe(a);
    expect(await cloneTag(laptop, { create: true })).not.toBe(made);
  }, 60_000);

  it('reads every lease at its own place whatever else a push adds to the table: a copy under another name, a blob that is not UTF-8, a huge one (red team 4)', async () => {
    const { open } = await setUp();
    const alice = open('alice');
    const [held] = await alice.acquire(['packages/payments/src/stripe.ts'], { holder: 'alice', ttlMs: 600_000 });
    expect(held).toMatchObject({ status: 'acquired' });
    const id = (held as { id: string }).id;
    // A co-worker (or an agent with the person's credentials) pushes files beside the leases.
    const bare = remote!.bare;
    const index = path.join(remote!.dir, 'crafted-index');
    const env = { ...process.env, GIT_INDEX_FILE: index };
    const g = (args: string[], input?: string) => execa('git', ['--git-dir', bare, ...args], { env, ...(input !== undefined ? { input } : {}) });
    await g(['read-tree', 'refs/waves/leases']);
    const listed = (await g(['ls-tree', '-r', 'refs/waves/leases'])).stdout.split('\n');
    const own = listed.find((line) => line.endsWith(`/${id}.json`))!;
    const [, , sha] = own.split('\t')[0]!.split(' ');
    const fan = own.split('\t')[1]!.split('/')[1]!;
    // (a) a byte-for-byte copy of the lease under another name in its folder;
    await g(['update-index', '--add', '--cacheinfo', `100644,${sha},leases/${fan}/zz-copy.json`]);
    // (b) a blob of bytes that are not UTF-8 with a fake object header inside, sorted first;
    const bytes = Buffer.concat([Buffer.alloc(64, 0xff), Buffer.from(`\n${sha} blob 400\n`)]);
    const odd = (await execa('git', ['--git-dir', bare, 'hash-object', '-w', '--stdin'], { input: bytes })).stdout.trim();
    await g(['update-index', '--add', '--cacheinfo', `100644,${odd},leases/00/x.json`]);
    // (c) a blob far bigger than any lease.
    const big = (await execa('git', ['--git-dir', bare, 'hash-object', '-w', '--stdin'], { input: 'x'.repeat(200_000) })).stdout.trim();
    await g(['update-index', '--add', '--cacheinfo', `100644,${big},leases/01/big.json`]);
    const tree = (await g(['write-tree'])).stdout.trim();
    const parent = (await g(['rev-parse', 'refs/waves/leases'])).stdout.trim();
    const commit = (await g(['-c', 'user.name=x', '-c', 'user.email=x@x', 'commit-tree', tree, '-p', parent, '-m', 'crafted'])).stdout.trim();
    await g(['update-ref', 'refs/waves/leases', commit]);

    const bob = open('bob');
    const listing = await bob.list();
    expect(listing.leases.map((l) => l.id)).toEqual([id]);
    expect((await bob.acquire(['packages/payments'], { holder: 'bob', ttlMs: 600_000 }))[0]).toMatchObject({ status: 'refused', holder: 'alice' });
    // gc drops the three files that are not leases, and only them.
    const gc = await bob.gc();
    expect(JSON.stringify(gc)).toMatch(/zz-copy\.json/);
    expect((await open('carol').list()).leases.map((l) => l.id)).toEqual([id]);
    const after = (await execa('git', ['--git-dir', bare, 'ls-tree', '-r', '--name-only', 'refs/waves/leases'])).stdout.split('\n');
    expect(after.filter((f) => f.startsWith('leases/')).sort()).toEqual([`leases/${fan}/${id}.json`]);
  });

  it('never answers acquired for a lease file its readers would skip: an empty holder is refused, a run-shaped holder of issue 0 or past 2^53 holds (red team 4 D2)', async () => {
    const { open } = await setUp();
    const alice = open();
    await expect(alice.acquire(['src/a'], { holder: '', ttlMs: 60_000 })).rejects.toThrow(/refused to write lease l-\S+, which its readers would skip \(holder: /);
    expect(await remote!.history()).toEqual([]);
    const holders = ['ci/resolve-0-20261202T000000000Z', 'ci/resolve-9007199254740993-20261202T000000000Z'];
    for (const [i, holder] of holders.entries()) expect((await alice.acquire([`src/${i}`], { holder, ttlMs: 60_000 }))[0]).toMatchObject({ status: 'acquired' });
    const listed = await open('other').list();
    expect(listed.warnings).toEqual([]);
    expect(listed.leases.map((l) => l.holder)).toEqual(holders);
    expect((await remote!.history()).at(-1)!.leases.map((l) => [l.run, l.issue]).sort()).toEqual([['resolve-0-20261202T000000000Z', null], ['resolve-9007199254740993-20261202T000000000Z', null]]);
    expect((await open('bob').acquire(['src/0/x.ts'], { holder: 'bob', ttlMs: 60_000 }))[0]).toMatchObject({ status: 'refused' });
  });

  it('writes no table whose epoch would pass 2^53−1, which no reader takes: one line, and the table stays readable (red team 4 D7)', async () => {
    const { open } = await setUp();
    const bare = remote!.bare;
    const g = (args: string[], input?: string) => execa('git', ['--git-dir', bare, ...args], input !== undefined ? { input } : {});
    const header = (await g(['hash-object', '-w', '--stdin'], `${JSON.stringify({ v: 1, epoch: Number.MAX_SAFE_INTEGER })}\n`)).stdout.trim();
    const tree = (await g(['mktree'], `100644 blob ${header}\ttable.json\n`)).stdout.trim();
    const commit = (await g(['-c', 'user.name=x', '-c', 'user.email=x@x', 'commit-tree', tree, '-m', 'crafted'])).stdout.trim();
    await g(['update-ref', 'refs/waves/leases', commit]);
    const alice = open();
    const refused = alice.acquire(['src'], { holder: 'alice', ttlMs: 60_000 });
    await expect(refused).rejects.toBeInstanceOf(LeaseRemoteError);
    await expect(refused).rejects.toThrow(/^the lease table refs\/waves\/leases on origin: its epoch is 9007199254740991, the largest a fencing token can be \(2\^53-1\), so no table after it can be read and nothing was written; /);
    expect((await g(['rev-parse', 'refs/waves/leases'])).stdout.trim()).toBe(commit);
    expect((await alice.list()).leases).toEqual([]);
  });

  it('takes no lease file whose dates name no time zone: each reader would read them in its own (red team 4 D8)', () => {
    const lease = { v: 1, id: 'l-x', path: 'src', holder: 'alice', run: null, issue: null, acquired: '2026-12-02T03:00:00Z', expires: '2026-12-02T04:00:00+01:00', epoch: 1 };
    expect(TableLeaseSchema.safeParse(lease).success).toBe(true);
    expect(TableLeaseSchema.safeParse({ ...lease, expires: '2026-12-02T04:00:00' }).success).toBe(false);
    expect(TableLeaseSchema.safeParse({ ...lease, acquired: '2026-12-02' }).success).toBe(false);
  });

  it('takes several paths all or nothing: a request with one held path leaves none of its others taken', async () => {
    const { open } = await setUp();
    const alice = open('alice');
    const bob = open('bob');
    expect((await alice.acquire(['src/a'], { holder: 'alice', ttlMs: 60_000 }))[0]).toMatchObject({ status: 'acquired', lane: 'src/a', epoch: 1 });
    const refused = await bob.acquire(['src/b', 'src/c/x.ts', 'src/a/deep/file.ts'], { holder: 'bob', ttlMs: 60_000 });
    expect(refused).toEqual([expect.objectContaining({ status: 'refused', lane: 'src/a/deep/file.ts', holder: 'alice', heldLane: 'src/a' })]);
    expect((await bob.list()).leases.map((l) => [l.lane, l.holder])).toEqual([['src/a', 'alice']]);
    const granted = await bob.acquire(['src/b', 'src/c/x.ts'], { holder: 'bob', ttlMs: 60_000 });
    expect(granted.map((r) => r.status)).toEqual(['acquired', 'acquired']);
    expect(new Set(granted.map((r) => (r.status === 'acquired' ? r.epoch : null)))).toEqual(new Set([2]));
    expect((await remote!.history()).map((t) => t.epoch)).toEqual([1, 2]);
  });

  it('holds an expired lease for the clock-skew margin, then lets another holder take it over and drops it', async () => {
    const { clock, open } = await setUp(5_000);
    const alice = open('alice');
    const bob = open('bob');
    const [taken] = await alice.acquire(['src'], { holder: 'alice', ttlMs: 10_000 });
    clock.ms += 10_000 + 4_000; // expired by alice's clock, not past the margin
    expect((await alice.renew([taken!.id], 10_000))[0]).toMatchObject({ status: 'not-active' });
    expect((await bob.acquire(['src/x.ts'], { holder: 'bob', ttlMs: 10_000 }))[0]).toMatchObject({ status: 'refused', holder: 'alice' });
    clock.ms += 2_000; // past expiry plus the margin
    const [takeover] = await bob.acquire(['src/x.ts'], { holder: 'bob', ttlMs: 10_000 });
    expect(takeover).toMatchObject({ status: 'acquired', epoch: 2 });
    const tables = await remote!.history();
    expect(tables.at(-1)!.leases.map((l) => l.holder)).toEqual(['bob']); // dropped by bob's write
    expect((await alice.renew([taken!.id], 10_000))[0]).toMatchObject({ status: 'not-active' });
  });

  it('renews a live lease without changing its fencing token, and a renewed lease outlives its first expiry', async () => {
    const { clock, open } = await setUp();
    const alice = open();
    const [taken] = await alice.acquire(['src'], { holder: 'alice', ttlMs: 10_000 });
    await open('other').acquire(['docs'], { holder: 'bob', ttlMs: 10_000 }); // epoch 2
    clock.ms += 6_000;
    const [renewed] = await alice.renew([taken!.id], 10_000);
    expect(renewed).toMatchObject({ status: 'done', lease: { epoch: 1, until: new Date(clock.ms + 10_000).toISOString() } });
    clock.ms += 8_000;
    const { leases } = await alice.list();
    expect(fenceProblem(leases, [taken!.id], { [taken!.id]: 1 }, clock.ms)).toBeNull();
    expect(fenceProblem(leases, [taken!.id], { [taken!.id]: 3 }, clock.ms)).toMatch(/fencing token 1, not 3/);
    await alice.release([taken!.id]);
    expect(fenceProblem((await alice.list()).leases, [taken!.id], { [taken!.id]: 1 }, clock.ms)).toMatch(/no longer held/);
  });

  it('reports a change whose push lost its answer as made when the remote holds it, and says it may have been made when the remote cannot be read again (red team 4 D6)', async () => {
    const { open } = await setUp();
    // A git first in PATH whose push reaches the remote, then fails as a link that drops the answer would (`lost`), or fails before it (`refused`); and whose fetch after that fails too with `FAIL_FETCH`.
    const bin = path.join(remote!.dir, 'bin');
    const mark = path.join(remote!.dir, 'pushed');
    const real = (await execa('sh', ['-c', 'command -v git'])).stdout.trim();
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, 'git'), `#!/bin/sh
for a in "$@"; do
  if [ "$a" = push ]; then
    [ "$PUSH_MODE" = lost ] && "${real}" "$@" >/dev/null 2>&1
    touch "${mark}"; echo "fatal: the remote end hung up unexpectedly" >&2; exit 128
  fi
  if [ "$a" = fetch ] && [ -n "$FAIL_FETCH" ] && [ -f "${mark}" ]; then echo "fatal: unable to access the remote" >&2; exit 128; fi
done
exec "${real}" "$@"
`);
    await chmod(path.join(bin, 'git'), 0o755);
    const saved = { PATH: process.env.PATH, PUSH_MODE: process.env.PUSH_MODE, FAIL_FETCH: process.env.FAIL_FETCH };
    const alice = open();
    try {
      process.env.PATH = `${bin}${path.delimiter}${process.env.PATH}`;
      process.env.PUSH_MODE = 'lost';
      const [taken] = await alice.acquire(['src/a'], { holder: 'alice', ttlMs: 60_000 });
      expect(taken).toMatchObject({ status: 'acquired', epoch: 1 });
      expect((await remote!.history()).at(-1)!.leases.map((l) => l.id)).toEqual([(taken as { id: string }).id]);
      // A push refused before it reached the remote still fails, with its own line.
      process.env.PUSH_MODE = 'refused';
      await expect(alice.acquire(['src/b'], { holder: 'alice', ttlMs: 60_000 })).rejects.toThrow(/^the lease table refs\/waves\/leases on origin could not be written to .*: the remote end hung up unexpectedly$/);
      // Lost, and the remote not read again: it may have been taken — by whom, on what.
      process.env.PUSH_MODE = 'lost';
      process.env.FAIL_FETCH = '1';
      await rm(mark);
      await expect(alice.acquire(['src/c'], { holder: 'alice', ttlMs: 60_000 })).rejects.toThrow(/the remote end hung up unexpectedly; it could not be read again either, so the change may have been made \(acquire src\/c for alice\): waves lease list shows it once the remote answers$/);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    expect((await alice.list()).leases.map((l) => l.lane)).toEqual(['src/a', 'src/c']);
  });

  it('fails closed with LeaseRemoteError when the remote is out of reach, and works again once it is back', async () => {
    const { open } = await setUp();
    const alice = open();
    await alice.acquire(['src'], { holder: 'alice', ttlMs: 60_000 });
    const away = `${remote!.bare}.away`;
    await rename(remote!.bare, away);
    await expect(alice.list()).rejects.toBeInstanceOf(LeaseRemoteError);
    await expect(alice.acquire(['docs'], { holder: 'alice', ttlMs: 60_000 })).rejects.toThrow(/could not be read/);
    await rename(away, remote!.bare);
    expect((await alice.list()).leases).toHaveLength(1);
  });

  it('refuses remotes whose transport could run a program or carries no integrity', async () => {
    for (const url of ['ext::sh -c touch% /tmp/pwned', 'fd::3', 'git://example.com/x.git', 'http://example.com/x.git', '-uhelp', 'foo::bar']) {
      expect(remoteUrlProblem(url), url).not.toBeNull();
    }
    for (const url of ['/srv/git/x.git', 'file:///srv/x.git', 'ssh://git@example.com/x.git', 'git@example.com:x.git', 'https://example.com/x.git']) {
      expect(remoteUrlProblem(url), url).toBeNull();
    }
    remote = await LeaseRemote.create();
    const root = await remote.clone('machine');
    const { execa } = await import('execa');
    await execa('git', ['remote', 'set-url', 'origin', 'ext::sh -c touch% pwned'], { cwd: root });
    await expect(resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git' })).rejects.toThrow(/remote helper/);
    const backend = gitLeaseBackend({ url: 'ext::sh -c touch% pwned', remoteName: 'origin', ref: 'refs/waves/leases', skewMs: 0, now: () => new Date(), storeDir: path.join(remote.dir, 's.git') });
    await expect(backend.list()).rejects.toThrow(/remote helper/);
    // A local remote inside the repository: an agent could plant the hooks a push there runs.
    await execa('git', ['init', '-q', '--bare', path.join(root, '.waves', 'planted.git')]);
    await execa('git', ['remote', 'set-url', 'origin', '.waves/planted.git'], { cwd: root });
    await expect(resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git' })).rejects.toThrow(/lies inside the repository/);
    await execa('git', ['remote', 'set-url', 'origin', remote.bare], { cwd: root });
    expect(await resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git' })).toMatchObject({ backend: 'git', url: remote.bare, remote: 'origin' });
  });

  it('should always agree with a model of the table under random interleavings of acquire, renew and release by several clients', async () => {
    remote = await LeaseRemote.create();
    const dir = remote.dir;
    let round = 0;
    const LANES = ['src', 'src/a', 'src/a/x.ts', 'src/b.ts', 'docs'];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('acquire' as const), client: fc.nat(2), lanes: fc.uniqueArray(fc.constantFrom(...LANES), { minLength: 1, maxLength: 2 }) }),
      fc.record({ kind: fc.constant('release' as const), client: fc.nat(2), pick: fc.nat() }),
      fc.record({ kind: fc.constant('renew' as const), client: fc.nat(2), pick: fc.nat() }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1_000, max: 8_000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 8 }), async (ops) => {
        round += 1;
        const clock = clockAt(Date.parse('2026-12-01T10:00:00.000Z'));
        const ref = `refs/waves/prop-${round}`;
        const clients = [0, 1, 2].map((i) => gitLeaseBackend({ url: remote!.bare, remoteName: 'origin', ref, skewMs: 0, now: clock.now, storeDir: path.join(dir, `prop-${i}.git`) }));
        // The model: id → lane, holder, expiry.
        const model = new Map<string, { lane: string; holder: string; expires: number }>();
        const liveModel = () => [...model.entries()].filter(([, l]) => l.expires > clock.ms);
        for (const step of ops) {
          if (step.kind === 'tick') {
            clock.ms += step.ms;
            continue;
          }
          const holder = `client-${step.client}`;
          const backend = clients[step.client]!;
          if (step.kind === 'acquire') {
            const blocked = step.lanes.some((lane) => liveModel().some(([, l]) => l.holder !== holder && lanesOverlap(l.lane, lane)));
            const results = await backend.acquire(step.lanes, { holder, ttlMs: 10_000 });
            expect(results.every((r) => r.status === 'refused')).toBe(blocked);
            if (!blocked) for (const r of results) model.set(r.id, { lane: r.lane, holder, expires: clock.ms + 10_000 });
          } else {
            const own = [...model.entries()].filter(([, l]) => l.holder === holder);
            if (own.length === 0) continue;
            const [id, lease] = own[step.pick % own.length]!;
            const live = lease.expires > clock.ms;
            const [result] = step.kind === 'release' ? await backend.release([id]) : await backend.renew([id], 10_000);
            expect(result!.status).toBe(live ? 'done' : 'not-active');
            if (step.kind === 'release' || !live) model.delete(id);
            else lease.expires = Math.max(lease.expires, clock.ms + 10_000);
          }
          const listed = (await backend.list()).leases.map((l) => l.id).sort();
          expect(listed).toEqual(liveModel().map(([id]) => id).sort());
        }
        for (const table of await remote!.history(ref)) expect(overlapIn(table.leases, table.at)).toBeNull();
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});

/** A bare repository whose hooks and `core.alternateRefsCommand` leave a mark when they run. */
async function trapped(bare: string, mark: string): Promise<void> {
  await execa('git', ['init', '-q', '--bare', bare]);
  for (const hook of ['pre-receive', 'update', 'post-receive', 'post-update', 'reference-transaction']) {
    await writeFile(path.join(bare, 'hooks', hook), `#!/bin/sh\necho ${hook} >> "${mark}"\n`);
    await chmod(path.join(bare, 'hooks', hook), 0o755);
  }
  const alternate = `${bare}-alt.git`;
  await execa('git', ['init', '-q', '--bare', alternate]);
  await writeFile(path.join(bare, 'objects', 'info', 'alternates'), `${path.join(alternate, 'objects')}\n`);
  await execa('git', ['--git-dir', bare, 'config', 'core.alternateRefsCommand', `echo alternateRefsCommand >> "${mark}"; true`]);
}

describe('where the repository may point the git backend', () => {
  it('refuses a local remote named ./..leases.git or ..x inside the repository, and accepts ../outside.git', async () => {
    remote = await LeaseRemote.create();
    const root = await remote.clone('machine');
    for (const name of ['..leases.git', '..']) {
      const bare = path.join(root, name === '..' ? 'sub/..x.git' : name);
      await execa('git', ['init', '-q', '--bare', bare]);
      const url = name === '..' ? './sub/..x.git' : `./${name}`;
      await expect(resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', remote: url, personal: true }), url).rejects.toThrow(/lies inside the repository/);
      await execa('git', ['remote', 'add', `r${name.length}`, url], { cwd: root });
      await expect(resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', remote: `r${name.length}` }), url).rejects.toThrow(/lies inside the repository/);
    }
    await execa('git', ['init', '-q', '--bare', path.join(remote.dir, 'outside.git')]);
    expect(await resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', remote: '../outside.git', personal: true })).toMatchObject({ url: path.join(remote.dir, 'outside.git') });
  });

  it("takes only a remote's name and a ref under refs/waves/ from the repository's own config; a URL only from the person's", async () => {
    remote = await LeaseRemote.create();
    const root = await remote.clone('machine');
    const other = path.join(remote.dir, 'other.git');
    await execa('git', ['init', '-q', '--bare', other]);
    for (const url of [other, `file://${other}`, 'https://example.com/other.git', 'git@example.com:other.git']) {
      await expect(resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', remote: url }), url).rejects.toThrow(/a repository's own config may only name one of its remotes/);
    }
    expect(await resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', remote: other, personal: true })).toMatchObject({ url: other });
    for (const ref of ['refs/notes/commits', 'refs/meta/config', 'refs/replace/abc', 'refs/for/main', 'refs/pull/1/head', 'refs/stash', 'refs/heads/main', 'refs/waves/seen/1']) {
      await expect(resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', ref, personal: true }), ref).rejects.toThrow(ref.startsWith('refs/waves/seen/') ? /is under refs\/waves\/seen\/, where waves keeps what it last read of a table/ : /must be under refs\/waves\//);
    }
    expect(await resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', ref: 'refs/waves/team-a' })).toMatchObject({ ref: 'refs/waves/team-a', remote: 'origin' });
  });

  it("runs none of a local remote's hooks nor its core.alternateRefsCommand on a lease change", async () => {
    remote = await LeaseRemote.create();
    const bare = path.join(remote.dir, 'hooked.git');
    const mark = path.join(remote.dir, 'ran');
    await trapped(bare, mark);
    const backend = gitLeaseBackend({ url: bare, remoteName: 'hooked', ref: 'refs/waves/leases', skewMs: 0, now: () => new Date(), storeDir: path.join(remote.dir, 'store.git') });
    const [taken] = await backend.acquire(['src'], { holder: 'alice', ttlMs: 60_000 });
    await backend.release([taken!.id]);
    await backend.gc();
    expect(existsSync(mark) ? await readFile(mark, 'utf8') : '').toBe('');
    expect((await execa('git', ['--git-dir', bare, 'rev-list', '--count', 'refs/waves/leases'])).stdout).toBe('2');
    // The same push as git makes it by default runs them: the trap is a real one.
    await execa('git', ['--git-dir', bare, 'update-ref', 'refs/waves/x', 'refs/waves/leases']);
    await execa('git', ['--git-dir', path.join(remote.dir, 'store.git'), 'push', '-q', bare, `${(await execa('git', ['--git-dir', bare, 'rev-parse', 'refs/waves/leases'])).stdout}:refs/waves/y`]);
    expect(await readFile(mark, 'utf8')).toMatch(/pre-receive/);
  });

  it("keeps no password or token of the remote's URL in the store a run record keeps, and reads the URL again by name at use", async () => {
    remote = await LeaseRemote.create();
    const root = await remote.clone('machine');
    const secret = 'https://alice:S3CRETPASS@example.invalid/shop.git';
    // The URL with credentials reaches the bare remote through an insteadOf of the person's (global) config.
    const home = path.join(remote.dir, 'home');
    await mkdir(home, { recursive: true });
    await writeFile(path.join(home, '.gitconfig'), `[url "${remote.bare}"]\n\tinsteadOf = ${secret}\n`);
    const saved = { HOME: process.env.HOME, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL };
    process.env.HOME = home;
    process.env.GIT_CONFIG_GLOBAL = path.join(home, '.gitconfig');
    try {
      await execa('git', ['remote', 'set-url', 'origin', secret], { cwd: root });
      const store = await resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git' });
      expect(JSON.stringify(store)).not.toMatch(/S3CRETPASS|alice/);
      expect(store).toMatchObject({ remote: 'origin', url: 'https://***@example.invalid/shop.git', urlDigest: expect.stringMatching(/^[0-9a-f]{64}$/), repo: root });
      const backend = openLeaseBackend(store, () => new Date());
      const [taken] = await backend.acquire(['src'], { holder: 'alice', ttlMs: 60_000 });
      expect(taken).toMatchObject({ status: 'acquired' });
      // origin re-pointed (by an agent…): the store refuses to act elsewhere than where the leases were taken.
      await execa('git', ['remote', 'set-url', 'origin', 'https://mallory:other@example.invalid/shop.git'], { cwd: root });
      await expect(openLeaseBackend(store, () => new Date()).list()).rejects.toThrow(/no longer the URL the leases were taken at \(https:\/\/\*\*\*@example\.invalid\/shop\.git\)/);
      await execa('git', ['remote', 'set-url', 'origin', secret], { cwd: root });
      expect((await openLeaseBackend(store, () => new Date()).list()).leases.map((l) => l.id)).toEqual([taken!.id]);
      // A URL with credentials given in a config of the person's is refused: no name to read it again by.
      await expect(resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', remote: secret, personal: true })).rejects.toThrow(/password or token would be written into every run record/);
      // An ssh user is no secret: kept as it is.
      expect(await resolveLeaseStore(root, '.waves/leases.jsonl', { backend: 'git', remote: 'ssh://git@example.invalid/shop.git', personal: true })).toMatchObject({ url: 'ssh://git@example.invalid/shop.git' });
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});

