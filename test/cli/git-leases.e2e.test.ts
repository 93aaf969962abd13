/**
 * Leases across machines on the git remote, end to end: a bare repository stands for the team's
 * remote and clones of it for machines. The race of six orchestrators in three clones, replayed
 * from the ref's history; `waves lease` on the git backend; a remote out of reach at dispatch and
 * at plan time; a remote that goes away while a run works; a lease lost under a run, which its
 * harvest refuses.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { lanesOverlap } from '@waves/planner';
import { cloneTag } from '@waves/dispatch';
import { exampleRepo, FAKE_AGENT_CONFIG, ROOT, TEST_STATE_DIR, waves } from '../helpers/example-repo.js';
import { LeaseRemote, overlapIn } from '../helpers/lease-remote.js';
import type { TempRepo } from '../helpers/temp-repo.js';

const RACER = path.join(ROOT, 'test/fixtures/lease-racer.mjs');
const GIT_LEASES = { leases: { backend: 'git', clockSkew: '0s' } };

let remote: LeaseRemote | null = null;
let repo: TempRepo | null = null;
afterEach(async () => {
  await remote?.dispose();
  await repo?.dispose();
  remote = null;
  repo = null;
});

/** The example repository pushed to a bare remote, with the git backend configured (and `config` over it). */
async function exampleOnRemote(config: object = {}) {
  repo = await exampleRepo({ agents: FAKE_AGENT_CONFIG, ...GIT_LEASES, ...config });
  remote = await LeaseRemote.create();
  await repo.git('remote', 'add', 'origin', remote.bare);
  await repo.git('push', '-q', 'origin', 'main');
  return repo.root;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const recordsOf = (root: string) => {
  const dir = path.join(root, '.dispatch-runs');
  return execa('ls', [dir], { reject: false }).then((r) =>
    r.stdout
      .split('\n')
      .filter((n) => /^resolve-.*\.json$/.test(n))
      // A record listed may be gone when read: a run whose lease was refused is removed, not started.
      .flatMap((n) => {
        try {
          return [JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as { id: string; status: string; reason: string | null; leaseIds: string[]; leaseEpochs?: Record<string, number>; log: string; issue: { number: number } }];
        } catch {
          return [];
        }
      }),
  );
};

describe('leases on the git remote', () => {
  it('never lets two of six orchestrators in three clones hold overlapping paths, replayed from the ref history', async () => {
    remote = await LeaseRemote.create();
    const clones = [await remote.clone('laptop'), await remote.clone('ci'), await remote.clone('buildbox')];
    const racers = clones.flatMap((clone, i) => [0, 1].map((j) => execa(process.execPath, [RACER, clone, `machine-${i}-${j}`, '10'], { env: { WAVES_STATE_DIR: TEST_STATE_DIR } })));
    const tallies = (await Promise.all(racers)).map((r) => JSON.parse(r.stdout) as { acquired: number; refused: number; busy: number; ids: string[] });
    const acquired = tallies.reduce((n, t) => n + t.acquired, 0);
    expect(acquired).toBeGreaterThan(0);
    const tables = await remote.history();
    // Every acquisition and its release is one table each.
    expect(tables.length).toBe(acquired * 2);
    tables.forEach((table, i) => {
      expect(table.epoch).toBe(i + 1);
      expect(overlapIn(table.leases, table.at), `table ${i + 1}`).toBeNull();
    });
    // Every lease a racer was granted is in the history, with the epoch of the table that took it.
    const seen = new Map(tables.flatMap((t) => t.leases.map((l) => [l.id, l.epoch] as const)));
    for (const id of tallies.flatMap((t) => t.ids)) expect(seen.has(id), id).toBe(true);
    expect(tables.at(-1)!.leases).toEqual([]);
  }, 240_000);

  it('acquires, refuses (exit 3), lists, renews, releases and collects on the git backend from two clones', async () => {
    remote = await LeaseRemote.create();
    const files = { 'src/a/x.ts': '', 'src/b.ts': '', 'waves.config.json': JSON.stringify(GIT_LEASES) };
    const laptop = await remote.clone('laptop', files);
    const ci = await remote.clone('ci');
    const acquired = await waves(['lease', 'acquire', 'src/a', '--holder', 'alice', '--ttl', '30m', '--json'], laptop);
    expect(acquired.exitCode, acquired.stderr).toBe(0);
    const lease = JSON.parse(acquired.stdout);
    expect(lease).toMatchObject({ status: 'acquired', lane: 'src/a', holder: 'alice', epoch: 1 });
    const refused = await waves(['lease', 'acquire', 'src/a/x.ts', '--holder', 'bob', '--json'], ci);
    expect(refused.exitCode).toBe(3);
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 'refused', holder: 'alice', heldLane: 'src/a' });
    expect(JSON.parse((await waves(['lease', 'list', '--json'], ci)).stdout)).toEqual([expect.objectContaining({ id: lease.id, lane: 'src/a', epoch: 1 })]);
    expect((await waves(['lease', 'renew', lease.id, '--ttl', '2h', '--holder', 'alice'], ci)).exitCode).toBe(0);
    expect((await waves(['lease', 'release', lease.id, '--holder', 'alice'], ci)).exitCode).toBe(0);
    expect((await waves(['lease', 'renew', lease.id, '--holder', 'alice'], laptop)).exitCode).toBe(3);
    expect((await waves(['lease', 'acquire', 'src/a/x.ts', '--holder', 'bob', '--ttl', '1s'], ci)).exitCode).toBe(0);
    await new Promise((r) => setTimeout(r, 1_500));
    const gc = await waves(['lease', 'gc', '--json'], laptop);
    expect(JSON.parse(gc.stdout).dropped).toEqual([expect.objectContaining({ lane: 'src/a/x.ts', holder: 'bob' })]);
    expect((await remote.history()).at(-1)!.leases).toEqual([]);
  }, 120_000);

  it('says a ref lock left on the remote by a dead git is no contention: one line naming it, exit 1, not "busy" for ever', async () => {
    remote = await LeaseRemote.create();
    const laptop = await remote.clone('laptop', { 'src/a.ts': '', 'waves.config.json': JSON.stringify(GIT_LEASES) });
    expect((await waves(['lease', 'acquire', 'src/a.ts', '--holder', 'alice'], laptop)).exitCode).toBe(0);
    // What a receive-pack killed while it held the lock leaves behind.
    writeFileSync(path.join(remote.bare, 'refs/waves/leases.lock'), '');
    const stuck = await waves(['lease', 'acquire', 'src/b.ts', '--holder', 'bob'], laptop);
    expect(stuck.exitCode).toBe(1);
    expect(stuck.stderr.trim()).toMatch(/^waves: .*: the remote's lock on refs\/waves\/leases stayed taken through 16 attempts \(.*\): a git process there holds it, or one that died left it; remove that \.lock file on the remote if nothing is running there$/);
  }, 120_000);

  it('refuses to dispatch with one line (exit 1) when the remote is out of reach, and plan warns that held is unknown', async () => {
    const root = await exampleOnRemote();
    await rename(remote!.bare, `${remote!.bare}.away`);
    const dispatch = await waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake'], root);
    expect(dispatch.exitCode).toBe(1);
    const lines = dispatch.stderr.trim().split('\n').filter((l) => !l.includes('could not read the remote leases'));
    expect(lines).toEqual([expect.stringMatching(/^waves: dispatch refused: the remote leases could not be read \(the lease table refs\/waves\/leases on origin could not be read/)]);
    expect(await recordsOf(root)).toEqual([]);
    const plan = await waves(['plan', '--from-issues', 'backlog.json', '--json'], root);
    expect(plan.exitCode).toBe(0);
    expect(JSON.parse(plan.stdout).heldUnknown).toMatch(/could not be read/);
    expect(plan.stderr).toMatch(/could not read the remote leases .*held is unknown/);
    const list = await waves(['lease', 'acquire', 'packages/web', '--holder', 'me'], root);
    expect(list.exitCode).toBe(1);
    expect(list.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^waves: the lease table refs\/waves\/leases on origin could not be read from /)]);
  }, 60_000);

  it('holds back in plan, and never dispatches, an issue whose paths another clone leases', async () => {
    const root = await exampleOnRemote();
    const other = await remote!.clone('other');
    writeFileSync(path.join(other, 'waves.config.json'), JSON.stringify(GIT_LEASES));
    expect((await waves(['lease', 'acquire', 'packages/payments', '--holder', 'other-machine'], other)).exitCode).toBe(0);
    const plan = JSON.parse((await waves(['plan', '--from-issues', 'backlog.json', '--json'], root)).stdout);
    expect(plan.held.map((h: { number: number }) => h.number)).toEqual(expect.arrayContaining([101, 103]));
    const scripts = path.join(remote!.dir, 'script.json');
    writeFileSync(scripts, JSON.stringify({ default: { sleepMs: 100 } }));
    const dispatch = await waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake'], root, { FAKE_AGENT_SCRIPT: scripts });
    expect(dispatch.exitCode, dispatch.stderr).toBe(0);
    const records = await recordsOf(root);
    expect(records.length).toBeGreaterThan(0);
    const tables = await remote!.history();
    for (const table of tables) {
      for (const lease of table.leases.filter((l) => l.holder !== 'other-machine')) expect(lanesOverlap(lease.path, 'packages/payments'), lease.path).toBe(false);
    }
  }, 120_000);

  it('stops a run whose renewals fail for the lease time once the remote goes away, and its log says the lease was lost', async () => {
    const root = await exampleOnRemote({ leases: { backend: 'git', clockSkew: '0s', ttl: '3s' } });
    const script = path.join(remote!.dir, 'script.json');
    writeFileSync(script, JSON.stringify({ default: { sleepMs: 60_000 } }));
    const dispatch = waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--concurrency', '1'], root, { FAKE_AGENT_SCRIPT: script });
    try {
      await waitFor('a running run', async () => (await recordsOf(root)).some((r) => r.status === 'running'));
      await rename(remote!.bare, `${remote!.bare}.away`);
      await waitFor('the run to stop', async () => (await recordsOf(root)).some((r) => r.status === 'failed'), 40_000);
    } finally {
      dispatch.kill('SIGTERM');
      await dispatch;
      await rename(`${remote!.bare}.away`, remote!.bare).catch(() => undefined);
    }
    const [run] = (await recordsOf(root)).filter((r) => r.status === 'failed');
    expect(run!.reason).toMatch(/^its lease on .* was lost \(not renewed for \d+ s/);
    expect(readFileSync(run!.log, 'utf8')).toMatch(/\[waves\] its lease on .* was lost .*stopping the agent/);
  }, 90_000);

  it('settles a run whose lease another machine took meanwhile as failed, and its harvest needs a person (stale fencing token)', async () => {
    const root = await exampleOnRemote();
    const other = await remote!.clone('other');
    writeFileSync(path.join(other, 'waves.config.json'), JSON.stringify(GIT_LEASES));
    const script = path.join(remote!.dir, 'script.json');
    writeFileSync(script, JSON.stringify({ default: { sleepMs: 6_000, edit: { 'packages/payments/src/stripe.ts': 'export const charge = 2;\n' } } }));
    const dispatch = waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--concurrency', '1'], root, { FAKE_AGENT_SCRIPT: script });
    let stolen: { id: string; lane: string; epoch: number } | null = null;
    try {
      await waitFor('a running run', async () => (await recordsOf(root)).some((r) => r.status === 'running'));
      const [running] = (await recordsOf(root)).filter((r) => r.status === 'running');
      const leases = JSON.parse((await waves(['lease', 'list', '--json'], other)).stdout) as { id: string; lane: string; epoch: number }[];
      stolen = leases.find((l) => running!.leaseIds.includes(l.id))!;
      expect(stolen.epoch).toBe(running!.leaseEpochs![stolen.id]);
      // Another machine drops it (a person's mistake, a clock far off) and takes the path.
      expect((await waves(['lease', 'release', stolen.id, '--force'], other)).exitCode).toBe(0);
      expect((await waves(['lease', 'acquire', stolen.lane, '--holder', 'thief'], other)).exitCode).toBe(0);
      await dispatch;
    } finally {
      dispatch.kill('SIGTERM');
    }
    const run = (await recordsOf(root)).find((r) => r.leaseIds.includes(stolen!.id))!;
    expect(run.status).toBe('failed');
    expect(run.reason).toMatch(/lease .* (no longer held|was lost)/);
    const harvest = await waves(['harvest', '--run', run.id, '--json', '--commit'], root);
    const report = JSON.parse(harvest.stdout) as { runs: { witness: { status: string; reasons: string[]; commit: unknown } }[] };
    const witness = report.runs[0]!.witness;
    expect(witness.status).toBe('needs_person');
    expect(witness.commit).toBeNull();
    expect(witness.reasons.join('\n')).toMatch(/its lease was lost before the agent ended \(lease .* is no longer held\): another machine or run may have worked on the same paths/);
  }, 120_000);

  it("never reaps, as an orphan, a lease another clone's live run holds (it has no record here); its own orphans it does", async () => {
    const root = await exampleOnRemote();
    const other = await remote!.clone('other');
    const run = 'resolve-105-20261201T100000000Z';
    const theirs = `me@host/${await cloneTag(other)}/${run}`;
    const mine = `me@host/${await cloneTag(root)}/resolve-106-20261201T100000000Z`;
    for (const [lane, holder] of [['packages/core', theirs], ['packages/web', mine]] as const) {
      expect((await waves(['lease', 'acquire', lane, '--holder', holder], root)).exitCode).toBe(0);
    }
    const reap = await waves(['status', '--reap'], root);
    expect(reap.exitCode, reap.stderr).toBe(0);
    const left = JSON.parse((await waves(['lease', 'list', '--json'], other)).stdout) as { holder: string }[];
    expect(left.map((l) => l.holder)).toEqual([theirs]);
  }, 60_000);

  it('never has two clones dispatching the same backlog at once run conflicting issues at the same time', async () => {
    const root = await exampleOnRemote();
    const second = path.join(remote!.dir, 'second');
    await execa('git', ['clone', '-q', remote!.bare, second]);
    const script = path.join(remote!.dir, 'script.json');
    const trace = path.join(remote!.dir, 'trace.jsonl');
    writeFileSync(script, JSON.stringify({ default: { sleepMs: 2_000 } }));
    const env = { FAKE_AGENT_SCRIPT: script, FAKE_AGENT_TRACE: trace };
    const both = await Promise.all([root, second].map((dir) => waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake'], dir, env)));
    for (const result of both) expect([0, 1], result.stderr).toContain(result.exitCode);
    // Each machine saw the other's leases: an issue one runs is skipped by the other.
    expect(both.map((r) => r.stderr).join('\n')).toMatch(/skipped: .* is leased by .*\/resolve-/);
    const events = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; issue: number; cwd: string; at: number });
    // An agent stopped before its own end (a loaded machine: its run failed or timed out) writes no
    // end event: its run's record says when it ended, and its leases were released after that.
    const endedAt = (cwd: string, issue: number, after: number): number => {
      const dir = path.join(cwd, '.dispatch-runs');
      const ends = (existsSync(dir) ? readdirSync(dir) : [])
        .filter((n) => n.startsWith(`resolve-${issue}-`) && n.endsWith('.json'))
        .map((n) => (JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as { endedAt?: string | null }).endedAt)
        .map((at) => (at ? Date.parse(at) : Infinity))
        .filter((at) => at >= after);
      return ends.length > 0 ? Math.min(...ends) : Infinity;
    };
    const runs = events
      .filter((e) => e.event === 'start')
      .map((start) => ({ ...start, end: events.find((e) => e.event === 'end' && e.issue === start.issue && e.cwd === start.cwd && e.at >= start.at)?.at ?? endedAt(start.cwd, start.issue, start.at) }));
    expect(new Set(runs.map((r) => r.cwd)).size).toBeGreaterThan(0);
    // The same issue never runs on both machines at once.
    for (const a of runs) for (const b of runs) if (a !== b && a.issue === b.issue && a.cwd !== b.cwd) expect(a.end <= b.at || b.end <= a.at, `#${a.issue}: ${JSON.stringify({ runs, stderr: both.map((r) => r.stderr), records: [root, second].map((d) => (existsSync(path.join(d, '.dispatch-runs')) ? readdirSync(path.join(d, '.dispatch-runs')) : [])) })}`).toBe(true);
    // And the table never held overlapping leases of two runs.
    for (const table of await remote!.history()) expect(overlapIn(table.leases, table.at)).toBeNull();
  }, 180_000);
});

/** Writes `refs/waves/leases` in `bare` by hand: a table of `entries` (`path` → blob text, or a gitlink with `commit`). */
async function forgeTable(bare: string, epoch: number, entries: Record<string, string | { commit: string }>): Promise<void> {
  const git = (args: string[], input?: string) => execa('git', ['--git-dir', bare, ...args], input === undefined ? {} : { input }).then((r) => r.stdout.trim());
  type Node = Map<string, Node | string>;
  const rootNode: Node = new Map();
  const all: Record<string, string | { commit: string }> = { 'table.json': `${JSON.stringify({ v: 1, epoch })}\n`, ...entries };
  for (const [file, content] of Object.entries(all)) {
    const parts = file.split('/');
    let at = rootNode;
    for (const part of parts.slice(0, -1)) {
      if (!at.has(part)) at.set(part, new Map());
      at = at.get(part) as Node;
    }
    at.set(parts.at(-1)!, typeof content === 'string' ? `100644 blob ${await git(['hash-object', '-w', '--stdin'], content)}` : `160000 commit ${content.commit}`);
  }
  const mktree = async (node: Node): Promise<string> => {
    const lines: string[] = [];
    for (const [name, child] of node) lines.push(`${typeof child === 'string' ? child : `040000 tree ${await mktree(child)}`}\t${name}`);
    return git(['mktree', '--missing'], `${lines.join('\n')}\n`);
  };
  const commit = await git(['-c', 'user.name=x', '-c', 'user.email=x@example.invalid', 'commit-tree', await mktree(rootNode), '-m', 'forged']);
  await git(['update-ref', 'refs/waves/leases', commit]);
}

describe("what the repository's own config may do with the git backend", () => {
  it('runs no hook of a committed ./..leases.git the config names, refuses it with one line (exit 2), and refuses it inside the repository from --config too', async () => {
    remote = await LeaseRemote.create();
    const mark = path.join(remote.dir, 'pwned');
    const hostile = await remote.clone('hostile', { 'src/a.ts': '', 'waves.config.json': JSON.stringify({ leases: { backend: 'git', remote: './..leases.git' } }) });
    await execa('git', ['init', '-q', '--bare', path.join(hostile, '..leases.git')]);
    writeFileSync(path.join(hostile, '..leases.git', 'hooks', 'pre-receive'), `#!/bin/sh\necho "PWNED in $(pwd)" >> "${mark}"\n`);
    chmodSync(path.join(hostile, '..leases.git', 'hooks', 'pre-receive'), 0o755);
    for (const keep of ['refs/heads/.keep', 'refs/tags/.keep', 'objects/pack/.keep']) writeFileSync(path.join(hostile, '..leases.git', keep), '');
    await execa('git', ['-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'add', '-A'], { cwd: hostile });
    await execa('git', ['-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'hostile'], { cwd: hostile });
    const victim = path.join(remote.dir, 'victim');
    await execa('git', ['clone', '-q', hostile, victim]);
    expect(existsSync(path.join(victim, '..leases.git', 'hooks', 'pre-receive'))).toBe(true);
    const acquire = await waves(['lease', 'acquire', 'src', '--holder', 'bob', '--ttl', '5m'], victim);
    expect(acquire.exitCode).toBe(2);
    expect(acquire.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^waves: leases\.remote "\.\/\.\.leases\.git": a repository's own config may only name one of its remotes/)]);
    const own = path.join(remote.dir, 'own.json');
    writeFileSync(own, JSON.stringify({ leases: { backend: 'git', remote: './..leases.git' } }));
    const named = await waves(['lease', 'acquire', '--config', own, 'src', '--holder', 'bob', '--ttl', '5m'], victim);
    expect(named.exitCode).toBe(2);
    expect(named.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^waves: leases\.remote "\.\/\.\.leases\.git": \S+\/\.\.leases\.git lies inside the repository/)]);
    // A remote of the person's own naming a local repository with hooks: the lease is taken, its hooks never run.
    const outside = path.join(remote.dir, 'outside.git');
    await execa('cp', ['-r', path.join(victim, '..leases.git'), outside]);
    await execa('git', ['remote', 'add', 'leases', outside], { cwd: victim });
    writeFileSync(own, JSON.stringify({ leases: { backend: 'git', remote: 'leases' } }));
    const taken = await waves(['lease', 'acquire', '--config', own, 'src', '--holder', 'bob', '--ttl', '5m'], victim);
    expect(taken.exitCode, taken.stderr).toBe(0);
    expect((await execa('git', ['--git-dir', outside, 'rev-list', '--count', 'refs/waves/leases'])).stdout).toBe('1');
    expect(existsSync(mark)).toBe(false);
  }, 60_000);

  it("refuses a ref outside refs/waves/ and another repository's URL from the repository's config, and leaves that repository's notes alone", async () => {
    remote = await LeaseRemote.create();
    const other = path.join(remote.dir, 'other.git');
    await execa('git', ['init', '-q', '--bare', other]);
    const work = await remote.clone('work');
    await execa('git', ['-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'notes', 'add', '-m', 'audit: approved', 'HEAD'], { cwd: work });
    await execa('git', ['push', '-q', other, 'HEAD:refs/heads/main', 'refs/notes/commits'], { cwd: work });
    await execa('git', ['push', '-q', 'origin', 'refs/notes/commits'], { cwd: work });
    const notesOf = (bare: string) => execa('git', ['--git-dir', bare, 'rev-parse', 'refs/notes/commits']).then((r) => r.stdout.trim());
    const before = [await notesOf(other), await notesOf(remote.bare)];
    for (const leases of [
      { backend: 'git', remote: 'origin', ref: 'refs/notes/commits' },
      { backend: 'git', ref: 'refs/meta/config' },
      { backend: 'git', ref: 'refs/replace/abc' },
      { backend: 'git', remote: other, ref: 'refs/waves/leases' },
      { backend: 'git', remote: `file://${other}` },
      { backend: 'git', ref: 'refs/waves/seen/123' },
    ]) {
      writeFileSync(path.join(work, 'waves.config.json'), JSON.stringify({ leases }));
      const result = await waves(['lease', 'acquire', 'src', '--holder', 'bob', '--ttl', '5m'], work);
      expect(result.exitCode, JSON.stringify(leases)).toBe(2);
      expect(result.stderr.trim().split('\n'), JSON.stringify(leases)).toEqual([expect.stringMatching(/^waves: leases\.(ref "refs\/\S+" must be under refs\/waves\/|ref "refs\/waves\/seen\/123" is under refs\/waves\/seen\/, where waves keeps what it last read of a table: name another ref under refs\/waves\/|remote .*a repository's own config may only name one of its remotes)/)]);
    }
    expect([await notesOf(other), await notesOf(remote.bare)]).toEqual(before);
    // From a config of the person's own, a URL is the person's word.
    const own = path.join(remote.dir, 'own.json');
    writeFileSync(own, JSON.stringify({ leases: { backend: 'git', remote: other } }));
    expect((await waves(['lease', 'acquire', '--config', own, 'src', '--holder', 'bob', '--ttl', '5m'], work)).exitCode).toBe(0);
    expect(await notesOf(other)).toBe(before[0]);
  }, 60_000);

  it('keeps no password of the remote URL in any run record, its sealed copy or the state directory, and still releases the leases', async () => {
    const root = await exampleOnRemote();
    const secret = 'https://alice:S3CRETPASS@example.invalid/shop.git';
    const home = path.join(remote!.dir, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, '.gitconfig'), `[url "${remote!.bare}"]\n\tinsteadOf = ${secret}\n`);
    await execa('git', ['remote', 'set-url', 'origin', secret], { cwd: root });
    const state = path.join(remote!.dir, 'state');
    const env = { HOME: home, GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig'), WAVES_STATE_DIR: state };
    const dispatch = await waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--top', '2'], root, env);
    expect(dispatch.exitCode, dispatch.stderr).toBe(0);
    const records = await recordsOf(root);
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.status === 'succeeded')).toBe(true);
    const holding = (await execa('grep', ['-rl', 'S3CRETPASS', path.join(root, '.dispatch-runs'), state], { reject: false })).stdout;
    expect(holding).toBe('');
    const record = JSON.parse(readFileSync(path.join(root, '.dispatch-runs', readdirSync(path.join(root, '.dispatch-runs')).find((n) => n.endsWith('.json'))!), 'utf8'));
    expect(record.leaseStore).toMatchObject({ remote: 'origin', url: 'https://***@example.invalid/shop.git' });
    // The leases were released at the end, through the URL read again by name.
    expect((await remote!.history()).at(-1)!.leases).toEqual([]);
    expect(dispatch.stderr + dispatch.stdout).not.toMatch(/S3CRETPASS/);
  }, 120_000);

  it('reads a table flooded with 20,000 copies of a file that is no lease in a few lines, and lease gc drops them all (red team L3)', async () => {
    remote = await LeaseRemote.create();
    const root = await remote.clone('machine', { 'packages/core/src/x.ts': '', 'waves.config.json': JSON.stringify(GIT_LEASES) });
    const git = (args: string[], input?: string) => execa('git', ['--git-dir', remote!.bare, ...args], input === undefined ? {} : { input }).then((r) => r.stdout.trim());
    const junk = await git(['hash-object', '-w', '--stdin'], 'garbage\n');
    const header = await git(['hash-object', '-w', '--stdin'], `${JSON.stringify({ v: 1, epoch: 9 })}\n`);
    const fan = await git(['mktree'], Array.from({ length: 20_000 }, (_, i) => `100644 blob ${junk}\tl-${i}.json\n`).join(''));
    const leases = await git(['mktree'], `040000 tree ${fan}\tab\n`);
    const top = await git(['mktree'], `100644 blob ${header}\ttable.json\n040000 tree ${leases}\tleases\n`);
    await git(['update-ref', 'refs/waves/leases', await git(['-c', 'user.name=x', '-c', 'user.email=x@example.invalid', 'commit-tree', top, '-m', 'flood'])]);
    const list = await waves(['lease', 'list'], root);
    expect(list.exitCode, list.stderr).toBe(0);
    const lines = list.stderr.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[5]).toMatch(/^waves: the lease table refs\/waves\/leases on origin: 19995 more file\(s\) that are not leases, skipped \(waves lease gc drops them\)$/);
    const gc = await waves(['lease', 'gc'], root);
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(gc.stdout.trim()).toMatch(/^dropped 20000 file\(s\) that are not leases: (?:leases\/ab\/l-\d+\.json, ){10}and 19990 more$/);
    expect(await git(['ls-tree', '-r', '--name-only', 'refs/waves/leases'])).toBe('table.json');
  }, 120_000);

  it('refuses with one line, before reading them, a table header or a table commit larger than waves writes (red team L8)', async () => {
    remote = await LeaseRemote.create();
    const root = await remote.clone('machine', { 'packages/core/src/x.ts': '', 'waves.config.json': JSON.stringify(GIT_LEASES) });
    const git = (args: string[], input?: string) => execa('git', ['--git-dir', remote!.bare, ...args], input === undefined ? {} : { input }).then((r) => r.stdout.trim());
    for (const [header, message, what] of [
      [`${JSON.stringify({ v: 1, epoch: 5, pad: 'x'.repeat(100_000) })}\n`, 'table', /table\.json is 100,\d{3} bytes, more than any lease table waves writes \(16,384\)/],
      [`${JSON.stringify({ v: 1, epoch: 5 })}\n`, 'y'.repeat(200_000), /its commit is 20\d,\d{3} bytes, more than any lease table waves writes \(65,536\)/],
    ] as const) {
      const blob = await git(['hash-object', '-w', '--stdin'], header);
      const tree = await git(['mktree'], `100644 blob ${blob}\ttable.json\n`);
      await git(['update-ref', 'refs/waves/leases', await git(['-c', 'user.name=x', '-c', 'user.email=x@example.invalid', 'commit-tree', tree, '-F', '-'], message)]);
      const list = await waves(['lease', 'list'], root);
      expect(list.exitCode).toBe(1);
      const lines = list.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(what);
      expect(lines[0]).toMatch(/not read; look at it, then delete the ref \(git push origin :refs\/waves\/leases\) and acquire again$/);
    }
  }, 60_000);

  it('lets a lease dated in 2099 hold nothing, and lease gc drops it, a gitlink and foreign files, saying so', async () => {
    remote = await LeaseRemote.create();
    const root = await remote.clone('machine', { 'packages/core/src/x.ts': '', 'waves.config.json': JSON.stringify(GIT_LEASES) });
    const future = { v: 1, id: 'l-future-00000001', path: 'packages/core', holder: 'mallory', run: null, issue: null, acquired: '2099-01-01T00:00:00.000Z', expires: '2099-01-25T00:00:00.000Z', epoch: 4 };
    const fan = (id: string) => createHash('sha1').update(id).digest('hex').slice(0, 2);
    await forgeTable(remote.bare, 5, {
      [`leases/${fan(future.id)}/${future.id}.json`]: `${JSON.stringify(future)}\n`,
      'leases/ab/junk.json': 'not a lease\n',
      'leases/ab/l-sub-1.json': { commit: '1111111111111111111111111111111111111111' },
      'README.txt': 'not a lease\n',
    });
    const list = await waves(['lease', 'list', '--json'], root);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
    const gc = await waves(['lease', 'gc'], root);
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(gc.stdout.trim().split('\n')).toEqual([
      'dropped 1 expired lease(s) (or dated in the future): l-future-00000001 (packages/core, dated 2099-01-01T00:00:00.000Z)',
      'dropped 3 file(s) that are not leases: README.txt, leases/ab/junk.json, leases/ab/l-sub-1.json',
    ]);
    expect((await execa('git', ['--git-dir', remote.bare, 'ls-tree', '-r', '--name-only', 'refs/waves/leases'])).stdout.trim()).toBe('table.json');
    expect((await waves(['lease', 'gc'], root)).stdout).toBe('No expired lease to drop.');
    const acquire = await waves(['lease', 'acquire', 'packages/core/src/x.ts', '--holder', 'bob', '--ttl', '5m'], root);
    expect(acquire.exitCode, acquire.stderr).toBe(0);
  }, 60_000);
});

describe('the leases of paths the live fence added while a run ran', () => {
  for (const backend of ['git', 'journal'] as const) {
    it(`fails the run and keeps its harvest from committing when an added path's lease is taken by another holder (${backend})`, async () => {
      const root = await exampleOnRemote({ fence: { live: true }, ...(backend === 'journal' ? { leases: { backend: 'journal' } } : {}) });
      const script = path.join(remote!.dir, 'script.json');
      writeFileSync(script, JSON.stringify({ default: { sleepMs: 200 }, 101: { edit: { 'docs/notes.md': 'notes\n' }, sleepMs: 8_000 } }));
      const env = { FAKE_AGENT_SCRIPT: script };
      const running = waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--worktree', '--top', '1'], root, env);
      let granted: { leaseId: string } | undefined;
      await waitFor('the grant of docs/notes.md', async () => {
        const run = (await recordsOf(root)).find((r) => r.issue.number === 101) as { fence?: { extensions: { path: string; leaseId: string; epoch?: number }[] } } | undefined;
        granted = run?.fence?.extensions.find((e) => e.path === 'docs/notes.md');
        return granted !== undefined;
      });
      // Standing in for another machine, a person or an expiry: the lease ends and mallory takes the path.
      expect((await waves(['lease', 'release', granted!.leaseId, '--force'], root)).exitCode).toBe(0);
      const mallory = await waves(['lease', 'acquire', 'docs/notes.md', '--holder', 'mallory@other-machine', '--ttl', '30m'], root);
      expect(mallory.exitCode, mallory.stderr).toBe(0);
      const dispatched = await running;
      expect(dispatched.exitCode).not.toBe(0);
      const run = (await recordsOf(root)).find((r) => r.issue.number === 101)! as { id: string; status: string; reason: string | null; leaseEnd?: { held: boolean; detail: string | null }; fence?: { extensions: { leaseId: string; epoch?: number }[] } };
      expect(run.status).toBe('failed');
      expect(run.reason).toMatch(new RegExp(`its lease was lost before the agent ended \\(lease ${granted!.leaseId} is no longer held\\)`));
      expect(run.leaseEnd).toMatchObject({ held: false });
      if (backend === 'git') expect(run.fence!.extensions[0]!.epoch).toEqual(expect.any(Number));
      const harvest = await waves(['harvest', '--run', run.id, '--json', '--commit'], root);
      const witness = (JSON.parse(harvest.stdout) as { runs: { witness: { status: string; reasons: string[]; commit: unknown } }[] }).runs[0]!.witness;
      expect(witness.status).toBe('needs_person');
      expect(witness.commit).toBeNull();
      expect(witness.reasons.join('\n')).toMatch(/its lease was lost before the agent ended .*another machine or run may have worked on the same paths/);
      // mallory's lease stands.
      expect(JSON.parse((await waves(['lease', 'list', '--json'], root)).stdout)).toEqual([expect.objectContaining({ lane: 'docs/notes.md', holder: 'mallory@other-machine' })]);
    }, 120_000);
  }
});

