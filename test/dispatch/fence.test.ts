/**
 * The live fence of one run, as its supervisor keeps it (fence-keeper.ts), on a real copy of the
 * example repository: inside the fence, widening by the lease rule, refusals with their evidence,
 * paths an agent names that are not files of the repository, two runs racing for one file; and
 * the hooks' side — the CLI answering Claude Code's PreToolUse payloads and opencode's plugin
 * calling the same checker over the run's socket.
 */
import { existsSync, linkSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireLease,
  claudeHookPaths,
  claudeSettings,
  shellQuote,
  createFenceKeeper,
  installIntegrations,
  integrationOfTemp,
  opencodeHookPaths,
  readJournal,
  releaseLease,
  removeIntegrations,
  rulesFromCache,
  startFenceServer,
  type FenceKeeper,
  type FenceLog,
  type FenceRules,
} from '@waves/dispatch';
import { lanesOverlap, type LeaseRules } from '@waves/planner';
import { BIN, exampleRepo, ROOT, TEST_STATE_DIR } from '../helpers/example-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

const HOOKS = path.join(ROOT, 'test/fixtures/hooks');
const CLIENT = path.join(ROOT, 'packages/dispatch/dist/fence/fence-client.js');

let repo: TempRepo;
let rules: Pick<LeaseRules, 'graph' | 'tree'>;
let serial = 0;
beforeAll(async () => {
  repo = await exampleRepo({});
  rules = await rulesFromCache(repo.root);
}, 60_000);
afterAll(async () => {
  await repo.dispose();
});

/** A keeper for a new run of its own (its own journal), or on the journal given. */
function keeperFor(fence: string[], options: { journal?: string; holder?: string; ownFiles?: string[]; sharedTree?: boolean; ttlMs?: number; onLeaseLost?: (path: string, why: string) => void } = {}) {
  const id = `resolve-${900 + ++serial}-20261201T000000${String(serial).padStart(3, '0')}Z`;
  const journal = options.journal ?? path.join(repo.root, '.waves', `leases-${serial}.jsonl`);
  const fenceRules: FenceRules = { holder: options.holder ?? `tester@host/${id}`, contentionDepth: 1, serial: ['tsconfig*.json'], onRefusal: 'tell' };
  const saved: FenceLog[] = [];
  const keeper = createFenceKeeper({
    root: repo.root,
    tree: repo.root,
    journal,
    rules: fenceRules,
    fence,
    ttlMs: options.ttlMs ?? 600_000,
    now: () => new Date(),
    ownFiles: options.ownFiles ?? [],
    ...(options.onLeaseLost ? { onLeaseLost: options.onLeaseLost } : {}),
    log: { installed: [], extensions: [], refusals: [] },
    onChange: async (log) => {
      saved.push(structuredClone(log));
    },
    loadRules: async () => rules,
    ...(options.sharedTree ? { sharedTree: true } : {}),
  });
  return { id, keeper, journal, holder: fenceRules.holder, saved, last: () => saved.at(-1) ?? { installed: [], extensions: [], refusals: [] } };
}

describe('a live fence', () => {
  it('allows a path inside the fence, grants a free one outside it (leased in the run\'s name, recorded) and allows it since', async () => {
    const run = keeperFor(['packages/api/src/routes/checkout.ts', 'packages/web/']);
    const results = await run.keeper.check(['packages/api/src/routes/checkout.ts', path.join(repo.root, 'packages/web/src/index.ts'), 'docs/architecture.md'], 'cli');
    expect(results.map((r) => [r.repoPath, r.status])).toEqual([
      ['packages/api/src/routes/checkout.ts', 'allowed'],
      ['packages/web/src/index.ts', 'allowed'],
      ['docs/architecture.md', 'granted'],
    ]);
    expect(run.last().extensions).toMatchObject([{ path: 'docs/architecture.md', by: 'cli', leaseId: expect.any(String) }]);
    const { events } = await readJournal(run.journal);
    expect(events).toMatchObject([{ op: 'acquire', lane: 'docs/architecture.md', holder: run.holder }]);
    expect((await run.keeper.check(['docs/architecture.md'], 'watcher'))[0]!.status).toBe('allowed');
    await run.keeper.close();
    expect((await readJournal(run.journal)).events.at(-1)).toMatchObject({ op: 'release' });
  });

  it('refuses a file one import away from a file another run leases, with the import as evidence', async () => {
    const run = keeperFor(['packages/api/src/routes/checkout.ts']);
    await acquireLease(run.journal, { lane: 'packages/payments/src/refunds.ts', holder: 'other@host/resolve-7-20261201T000000000Z', ttlMs: 600_000, now: () => new Date() });
    const [result] = await run.keeper.check(['packages/payments/src/stripe.ts'], 'claude');
    expect(result).toMatchObject({
      status: 'refused',
      reason: 'import',
      holder: 'other@host/resolve-7-20261201T000000000Z',
      via: 'packages/payments/src/refunds.ts imports packages/payments/src/stripe.ts',
    });
    expect(run.last().refusals).toMatchObject([{ path: 'packages/payments/src/stripe.ts', reason: 'import', by: 'claude', via: 'packages/payments/src/refunds.ts imports packages/payments/src/stripe.ts' }]);
    await run.keeper.close();
  });

  it('judges a file the agent wrote by what it imports now: a new file importing a leased file is refused, and so is a granted one rewritten to import one', async () => {
    const run = keeperFor(['packages/core/src/cart.ts']);
    const other = 'other@host/resolve-10-20261201T000000000Z';
    await acquireLease(run.journal, { lane: 'packages/payments/src/stripe.ts', holder: other, ttlMs: 600_000, now: () => new Date() });
    writeFileSync(path.join(repo.root, 'packages/api/src/fresh.ts'), "import { charge } from '@shop/payments/src/stripe.js';\nimport { charge as c } from '../../payments/src/stripe.js';\nexport const x = [charge, c];\n");
    expect((await run.keeper.check(['packages/api/src/fresh.ts'], 'watcher'))[0]).toMatchObject({
      status: 'refused',
      reason: 'import',
      holder: other,
      via: 'packages/api/src/fresh.ts imports packages/payments/src/stripe.ts',
    });
    // Granted before anything was written (a hook asks first), then written with the import.
    expect((await run.keeper.check(['packages/api/src/later.ts'], 'claude'))[0]!.status).toBe('granted');
    writeFileSync(path.join(repo.root, 'packages/api/src/later.ts'), "import { charge } from '../../payments/src/stripe.js';\nexport const y = charge;\n");
    expect((await run.keeper.check(['packages/api/src/later.ts'], 'watcher'))[0]).toMatchObject({ status: 'refused', reason: 'import', message: expect.stringMatching(/^written after it was added to the fence: /) });
    expect(run.last().refusals.map((r) => [r.path, r.reason, r.by])).toEqual([
      ['packages/api/src/fresh.ts', 'import', 'watcher'],
      ['packages/api/src/later.ts', 'import', 'watcher'],
    ]);
    await run.keeper.close();
  });

  it('never adds a root file or a serial path to a parallel run\'s fence', async () => {
    const run = keeperFor(['packages/core/src/cart.ts']);
    const results = await run.keeper.check(['package.json', 'pnpm-workspace.yaml', 'tsconfig.json'], 'cli');
    expect(results.map((r) => [r.repoPath, r.status, r.reason])).toEqual([
      ['package.json', 'refused', 'root'],
      ['pnpm-workspace.yaml', 'refused', 'root'],
      ['tsconfig.json', 'refused', 'root'],
    ]);
    expect((await readJournal(run.journal)).events).toEqual([]);
    await run.keeper.close();
  });

  it('refuses what an agent names that is no file of the repository: .., absolute paths elsewhere, links, .git, waves\' own files', async () => {
    const run = keeperFor(['packages/core/'], { ownFiles: ['.claude/settings.local.json'] });
    await mkdir(path.join(repo.root, 'linked'), { recursive: true });
    symlinkSync('/etc', path.join(repo.root, 'linked', 'etc'));
    symlinkSync('/etc/passwd', path.join(repo.root, 'packages', 'core', 'passwd'));
    const results = await run.keeper.check(
      ['../outside.ts', '/etc/passwd', 'linked/etc/hosts', 'packages/core/passwd', '.git/hooks/pre-commit', '.waves/leases.jsonl', '.claude/settings.local.json', 'packages/core/src'],
      'cli',
    );
    expect(results.map((r) => [r.path, r.status, r.reason])).toEqual([
      ['../outside.ts', 'refused', 'invalid'],
      ['/etc/passwd', 'refused', 'invalid'],
      ['linked/etc/hosts', 'refused', 'invalid'],
      ['packages/core/passwd', 'refused', 'invalid'],
      ['.git/hooks/pre-commit', 'refused', 'own'],
      ['.waves/leases.jsonl', 'refused', 'own'],
      ['.claude/settings.local.json', 'refused', 'own'],
      ['packages/core/src', 'refused', 'invalid'],
    ]);
    expect(results[2]!.message).toMatch(/symbolic link/);
    expect((await readJournal(run.journal)).events).toEqual([]);
    // A backslash is a character of a name on POSIX: that one file at the top, never packages/core/src/money.ts (red team 4).
    if (path.sep === '/') {
      const [odd] = await run.keeper.check(['packages\\core\\src\\money.ts'], 'watcher');
      expect([odd!.status, odd!.reason]).toEqual(['refused', 'invalid']);
      expect(odd!.message).toMatch(/backslash/);
      expect((await readJournal(run.journal)).events).toEqual([]);
    }
    await run.keeper.close();
  });

  it('never adds a control file to a running run\'s fence: package manager, git, agent, CI and waves settings, manifests and tsconfig files at any depth (F4)', async () => {
    const run = keeperFor(['packages/core/src/cart.ts']);
    const asked = ['.npmrc', '.pnpmfile.cjs', 'waves.config.json', '.gitattributes', '.husky/pre-commit', '.claude/settings.json', '.mcp.json', 'opencode.json', '.opencode/plugins/x.js', '.yarnrc.yml', '.envrc', 'packages/core/package.json', 'packages/core/tsconfig.json', 'packages/core/vite.config.ts'];
    const results = await run.keeper.check(asked, 'cli');
    expect(results.map((r) => [r.repoPath, r.status, r.reason])).toEqual(asked.map((p) => [p, 'refused', 'control']));
    expect(results[0]!.message).toMatch(/control file/);
    expect(run.last().extensions).toEqual([]);
    expect((await readJournal(run.journal)).events).toEqual([]);
    await run.keeper.close();
  });

  it('never adds CI configuration of another forge, nor a build file or tool config, to a running run\'s fence (red team E, E04)', async () => {
    const run = keeperFor(['packages/core/src/discounts.ts', 'packages/web/']);
    const ci = ['.circleci/config.yml', '.gitlab/ci/build.yml', '.gitlab-ci.yml', '.gitea/workflows/ci.yml', '.forgejo/workflows/ci.yml', '.buildkite/pipeline.yml', '.woodpecker/build.yml', 'Jenkinsfile', '.travis.yml'];
    const tools = [
      'packages/payments/.cargo/config.toml', 'packages/payments/.mvn/extensions.xml', 'gradle/wrapper/gradle-wrapper.properties', 'packages/payments/Directory.Build.props',
      'packages/payments/pyproject.toml', 'packages/payments/pytest.ini', 'packages/payments/tox.ini', 'packages/payments/build.rs', 'packages/payments/mise.local.toml',
      'packages/payments/Cargo.toml', 'packages/payments/build.gradle.kts', 'packages/payments/pom.xml', 'packages/payments/Makefile',
    ];
    const results = await run.keeper.check([...ci, ...tools], 'watcher');
    expect(results.map((r) => [r.repoPath, r.status, r.reason])).toEqual([...ci.map((p) => [p, 'refused', 'root']), ...tools.map((p) => [p, 'refused', 'control'])]);
    expect(run.last().extensions).toEqual([]);
    expect(run.last().refusals.map((r) => r.path)).toEqual([...ci, ...tools]);
    expect((await readJournal(run.journal)).events).toEqual([]);
    await run.keeper.close();
  });

  it('refuses a control file under a folder of the fence unless the fence names the file itself; sources under the folder stay allowed (red team E, E16)', async () => {
    const planted = [
      'packages/web/.claude/settings.json', 'packages/web/AGENTS.md', 'packages/web/CLAUDE.md', 'packages/web/.envrc', 'packages/web/.npmrc',
      'packages/web/vitest.config.ts', 'packages/web/package.json', 'packages/web/tsconfig.json', 'packages/web/pyproject.toml',
    ];
    const lane = keeperFor(['packages/core/src/discounts.ts', 'packages/web/']);
    const results = await lane.keeper.check([...planted, 'packages/web/src/index.ts', 'packages/web/src/new-view.tsx'], 'watcher');
    expect(results.map((r) => [r.repoPath, r.status, r.reason])).toEqual([
      ...planted.map((p) => [p, 'refused', 'control']),
      ['packages/web/src/index.ts', 'allowed', undefined],
      ['packages/web/src/new-view.tsx', 'allowed', undefined],
    ]);
    expect(results[0]!.message).toMatch(/control file .*folder of the fence/);
    expect(lane.last().refusals.map((r) => [r.path, r.reason])).toEqual(planted.map((p) => [p, 'control']));
    expect((await readJournal(lane.journal)).events).toEqual([]);
    await lane.keeper.close();
    // The whole repository as a folder (`./`) names no control file either.
    const root = keeperFor(['./']);
    expect((await root.keeper.check(['packages/web/.npmrc', 'packages/web/src/index.ts'], 'claude')).map((r) => r.status)).toEqual(['refused', 'allowed']);
    await root.keeper.close();
    // An issue whose plan names the manifest may change it, and the lockfile its install rewrites.
    const named = keeperFor(['packages/web/', 'packages/web/package.json']);
    expect((await named.keeper.check(['packages/web/package.json', 'pnpm-lock.yaml', 'packages/web/.npmrc'], 'claude')).map((r) => [r.repoPath, r.status])).toEqual([
      ['packages/web/package.json', 'allowed'],
      ['pnpm-lock.yaml', 'allowed'],
      ['packages/web/.npmrc', 'refused'],
    ]);
    await named.keeper.close();
  });

  it('refuses a path whose `..` comes after a symbolic link: the kernel writes through the link, elsewhere than the spelling says (F16)', async () => {
    const run = keeperFor(['packages/api/']);
    await mkdir(path.join(repo.root, 'packages/core/src/d'), { recursive: true });
    symlinkSync('../core/src/d', path.join(repo.root, 'packages/api/L'));
    try {
      const through = ['packages/api/L/../money.ts', `${repo.root}/packages/api/L/../money.ts`];
      const results = await run.keeper.check([...through, 'packages/api/src/../src/new.ts'], 'cli');
      expect(results.map((r) => [r.status, r.reason])).toEqual([
        ['refused', 'invalid'],
        ['refused', 'invalid'],
        ['allowed', undefined],
      ]);
      expect(results[0]!.message).toMatch(/packages\/api\/L is a symbolic link/);
    } finally {
      rmSync(path.join(repo.root, 'packages/api/L'));
      rmSync(path.join(repo.root, 'packages/core/src/d'), { recursive: true });
    }
    await run.keeper.close();
  });

  it('refuses a write the watcher sees to a file with another name (a hard link): it changes that file too (F2)', async () => {
    const run = keeperFor(['packages/api/']);
    linkSync(path.join(repo.root, 'packages/core/src/money.ts'), path.join(repo.root, 'packages/api/m.ts'));
    try {
      const [result] = await run.keeper.check(['packages/api/m.ts'], 'watcher');
      expect([result!.status, result!.reason]).toEqual(['refused', 'invalid']);
      expect(result!.message).toMatch(/hard link/);
    } finally {
      rmSync(path.join(repo.root, 'packages/api/m.ts'));
    }
    await run.keeper.close();
  });

  it('records a folder the watcher could not watch (out of inotify watches), for harvest (F12)', async () => {
    const run = keeperFor(['packages/core/src/cart.ts']);
    await run.keeper.blind('packages/core/src/sneaky', 'ENOSPC');
    await run.keeper.blind('packages/core/src/sneaky', 'ENOSPC');
    expect(run.last().unwatched).toEqual([{ path: 'packages/core/src/sneaky', at: expect.any(String), code: 'ENOSPC' }]);
    await run.keeper.close();
  });

  it('in a shared work tree, takes a write under another run\'s lease for that run\'s: neither granted nor refused', async () => {
    const run = keeperFor(['packages/core/src/cart.ts'], { sharedTree: true });
    await acquireLease(run.journal, { lane: 'package.json', holder: 'me@host/resolve-9-20261201T000000000Z', ttlMs: 600_000, now: () => new Date() });
    expect((await run.keeper.check(['package.json'], 'watcher'))[0]).toMatchObject({ status: 'allowed', holder: 'me@host/resolve-9-20261201T000000000Z' });
    expect(run.last().refusals).toEqual([]);
    // Asked for by the agent itself, the same path is refused.
    expect((await run.keeper.check(['package.json'], 'cli'))[0]).toMatchObject({ status: 'refused', reason: 'root' });
    await run.keeper.close();
  });

  it('grants one out-of-fence file to exactly one of two runs racing for it, and the journal replayed shows no overlap', async () => {
    const journal = path.join(repo.root, '.waves', 'race.jsonl');
    const runs = Array.from({ length: 4 }, () => keeperFor(['packages/core/src/money.ts'], { journal }));
    const results = await Promise.all(runs.map((run) => run.keeper.check(['scripts/seed.ts', 'docs/architecture.md'], 'watcher')));
    for (const file of [0, 1]) {
      const statuses = results.map((r) => r[file]!.status).sort();
      expect(statuses).toEqual(['granted', 'refused', 'refused', 'refused']);
    }
    for (const r of results) for (const res of r) if (res.status === 'refused') expect(res.reason).toBe('overlap');
    // Replayed event by event: no two live leases of different holders ever overlap.
    const { events } = await readJournal(journal);
    const live = new Map<string, { lane: string; holder: string }>();
    for (const event of events) {
      if (event.op === 'acquire') {
        for (const other of live.values()) if (other.holder !== event.holder) expect(lanesOverlap(other.lane, event.lane)).toBe(false);
        live.set(event.id, { lane: event.lane, holder: event.holder });
      } else if (event.op === 'release') live.delete(event.id);
    }
    await Promise.all(runs.map((run) => run.keeper.close()));
  });
});

describe('the hook protocols', () => {
  const fixture = (name: string, tree: string) => readFileSync(path.join(HOOKS, name), 'utf8').replaceAll('/WORKTREE', tree);

  it('reads the file each Claude Code edit tool names, and lets other tools be', () => {
    const tree = '/tmp/tree';
    expect(claudeHookPaths(JSON.parse(fixture('claude-write.json', tree)))).toEqual(['/tmp/tree/packages/api/src/extra.ts']);
    expect(claudeHookPaths(JSON.parse(fixture('claude-edit.json', tree)))).toEqual(['/tmp/tree/packages/api/src/routes/checkout.ts']);
    expect(claudeHookPaths(JSON.parse(fixture('claude-multiedit.json', tree)))).toEqual(['/tmp/tree/package.json']);
    expect(claudeHookPaths(JSON.parse(fixture('claude-notebookedit.json', tree)))).toEqual(['/tmp/tree/docs/analysis.ipynb']);
    expect(claudeHookPaths(JSON.parse(fixture('claude-bash.json', tree)))).toBeNull();
    expect(claudeHookPaths({ tool_name: 'Write', tool_input: {} })).toEqual([]);
  });

  it('reads the files each opencode edit tool names, apply_patch included', () => {
    const call = (name: string) => {
      const { input, output } = JSON.parse(fixture(name, '/tmp/tree')) as { input: { tool: string }; output: { args: unknown } };
      return opencodeHookPaths({ tool: input.tool, args: output.args });
    };
    expect(call('opencode-write.json')).toEqual(['/tmp/tree/packages/api/src/extra.ts']);
    expect(call('opencode-edit.json')).toEqual(['/tmp/tree/packages/api/src/routes/checkout.ts']);
    expect(call('opencode-apply-patch.json')).toEqual(['packages/api/src/routes/checkout.ts', 'packages/api/src/extra.ts']);
    expect(opencodeHookPaths({ tool: 'bash', args: { command: 'ls' } })).toBeNull();
  });

  describe('over a run\'s socket', () => {
    let run: ReturnType<typeof keeperFor>;
    let server: Awaited<ReturnType<typeof startFenceServer>>;
    let keeper: FenceKeeper;
    const key = 'k'.repeat(32);
    const env = { WAVES_STATE_DIR: TEST_STATE_DIR, WAVES_FENCE_TICKET: key };
    beforeAll(async () => {
      run = keeperFor(['packages/api/src/routes/checkout.ts'], { ownFiles: ['.claude/settings.local.json', '.opencode/plugins/waves-fence.js'] });
      keeper = run.keeper;
      await acquireLease(run.journal, { lane: 'package.json', holder: 'other@host/resolve-8-20261201T000000000Z', ttlMs: 600_000, now: () => new Date() });
      server = await startFenceServer(run.id, keeper, { ...process.env, ...env }, key);
    });
    afterAll(async () => {
      await server.close();
      await keeper.close();
    });
    const hook = (kind: 'claude' | 'opencode', stdin: string) =>
      execa(process.execPath, [BIN, 'fence', 'check', '--hook', kind, '--run', run.id], { input: stdin, reject: false, env });

    it('answers a Claude Code PreToolUse hook: nothing for an allowed edit, a deny with why and who for a refused one', async () => {
      const allowed = await hook('claude', fixture('claude-edit.json', repo.root));
      expect(allowed.exitCode).toBe(0);
      expect(allowed.stdout).toBe('');
      const granted = await hook('claude', fixture('claude-write.json', repo.root));
      expect([granted.exitCode, granted.stdout]).toEqual([0, '']);
      const refused = await hook('claude', fixture('claude-multiedit.json', repo.root));
      expect(refused.exitCode).toBe(0);
      const answer = JSON.parse(refused.stdout);
      expect(answer.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
      expect(answer.hookSpecificOutput.permissionDecisionReason).toMatch(/refused .*package\.json: .*root file/);
      expect(run.last().extensions.map((e) => [e.path, e.by])).toEqual([['packages/api/src/extra.ts', 'claude']]);
      // A tool that edits nothing passes untouched.
      expect((await hook('claude', fixture('claude-bash.json', repo.root))).stdout).toBe('');
    });

    it('teaches itself with --help, and refuses an unknown subcommand or hook with exit 2', async () => {
      const help = await execa(process.execPath, [BIN, 'fence', '--help'], { reject: false, env });
      expect([help.exitCode, help.stdout]).toEqual([0, expect.stringContaining('Exit codes: 0 allowed, 3 refused')]);
      expect((await execa(process.execPath, [BIN, 'fence', 'grant', 'x'], { reject: false, env })).exitCode).toBe(2);
      expect((await execa(process.execPath, [BIN, 'fence', 'check', '--run', run.id, '--hook', 'codex'], { reject: false, env })).exitCode).toBe(2);
    });

    it('denies every edit when the run has no live fence to ask (fail closed)', async () => {
      const result = await execa(process.execPath, [BIN, 'fence', 'check', '--hook', 'claude', '--run', 'resolve-1-20200101T000000000Z'], { input: fixture('claude-write.json', repo.root), reject: false, env });
      expect(JSON.parse(result.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/no live fence/) });
    });

    it('answers waves fence check with one line per refused path and exit 3', async () => {
      const result = await execa(process.execPath, [BIN, 'fence', 'check', '--run', run.id, 'packages/api/src/routes/checkout.ts', 'pnpm-lock.yaml', '../x'], { reject: false, env });
      expect(result.exitCode).toBe(3);
      const lines = result.stdout.split('\n');
      expect(lines[0]).toBe('allowed packages/api/src/routes/checkout.ts: inside the fence');
      expect(lines[1]).toMatch(/^refused pnpm-lock\.yaml: .*root file/);
      expect(lines[2]).toMatch(/^refused \.\.\/x: outside the work tree/);
      const bad = await execa(process.execPath, [BIN, 'fence', 'check', '--run', '../../etc', 'x'], { reject: false, env });
      expect(bad.exitCode).toBe(2);
    });

    it('answers no question without the run\'s key: another run\'s agent can neither stop this run nor widen its fence (F3)', async () => {
      const before = structuredClone(run.last());
      const noKey = await execa(process.execPath, [BIN, 'fence', 'check', '--run', run.id, 'package.json', 'scripts/junk.ts'], { reject: false, env: { WAVES_STATE_DIR: TEST_STATE_DIR, WAVES_FENCE_TICKET: 'x'.repeat(32) } });
      expect(noKey.exitCode).toBe(1);
      expect(noKey.stderr).toMatch(/does not carry this run's key/);
      expect(run.last()).toEqual(before);
    });

    it('closes a connection held open without a question, and ends every open one when the run ends (F20)', async () => {
      const other = keeperFor(['packages/api/src/routes/checkout.ts']);
      const otherKey = 'o'.repeat(32);
      const otherServer = await startFenceServer(other.id, other.keeper, { ...process.env, ...env }, otherKey);
      // One that sends a byte now and then but no question is closed by the server itself.
      const idle = createConnection(otherServer.socket);
      idle.on('error', () => undefined);
      await new Promise((resolve) => idle.once('connect', resolve));
      const keepAlive = setInterval(() => idle.write(' '), 500);
      await new Promise((resolve) => idle.once('close', resolve));
      clearInterval(keepAlive);
      const held = createConnection(otherServer.socket);
      held.on('error', () => undefined);
      await new Promise((resolve) => held.once('connect', resolve));
      held.write(' ');
      const gone = new Promise((resolve) => held.once('close', resolve));
      // The server closes although the connection is held: the run can settle.
      await otherServer.close();
      await gone;
      expect(existsSync(otherServer.socket)).toBe(false);
      await other.keeper.close();
    });

    it('uses a short socket folder of the user\'s own when the state directory is too deep for a unix socket (F21)', async () => {
      const deep = path.join(TEST_STATE_DIR, 'd'.repeat(60), 'e'.repeat(40));
      const other = keeperFor(['packages/api/src/routes/checkout.ts']);
      const deepEnv = { WAVES_STATE_DIR: deep, WAVES_FENCE_TICKET: 'd'.repeat(32) };
      const deepServer = await startFenceServer(other.id, other.keeper, { ...process.env, ...deepEnv }, deepEnv.WAVES_FENCE_TICKET);
      expect(Buffer.byteLength(deepServer.socket)).toBeLessThanOrEqual(103);
      expect(deepServer.socket.startsWith(deep)).toBe(false);
      const asked = await execa(process.execPath, [BIN, 'fence', 'check', '--run', other.id, 'packages/api/src/routes/checkout.ts'], { reject: false, env: deepEnv });
      expect([asked.exitCode, asked.stdout]).toEqual([0, 'allowed packages/api/src/routes/checkout.ts: inside the fence']);
      await deepServer.close();
      await other.keeper.close();
    });

    it('installs one hook for runs of a shared tree that start at the same instant: each shares it, none takes it half written for a stranger', async () => {
      const tree = path.join(repo.root, '..', `${path.basename(repo.root)}-race`);
      await mkdir(tree, { recursive: true });
      const installs = await Promise.all(
        Array.from({ length: 6 }, (_, i) => installIntegrations({ tree, runId: `resolve-${i + 1}-1`, argv: ['/usr/local/bin/claude', '-p', 'x'], waves: [process.execPath, BIN], clientModule: CLIENT, env: { ...process.env, ...env } })),
      );
      expect(installs.map((i) => [i.installed, i.notes])).toEqual(installs.map(() => [['.claude/settings.local.json'], []]));
      // One of them made the folder; nothing half written or temporary is left beside the hook.
      expect(installs.flatMap((i) => i.madeDirs)).toEqual(['.claude']);
      expect(readdirSync(path.join(tree, '.claude'))).toEqual(['settings.local.json']);
      expect(integrationOfTemp('.claude/.settings.local.json.123.456.tmp')).toBe('.claude/settings.local.json');
      expect(integrationOfTemp('.claude/.settings.json.123.456.tmp')).toBeNull();
      rmSync(tree, { recursive: true, force: true });
    });

    it('serves every run of a shared tree with one hook file that reads the run from WAVES_RUN; the last run removes it; a hook with no run refuses (F11)', async () => {
      const tree = path.join(repo.root, '..', `${path.basename(repo.root)}-shared`);
      await mkdir(tree, { recursive: true });
      const install = (runId: string) => installIntegrations({ tree, runId, argv: ['/usr/local/bin/claude', '-p', 'x'], waves: [process.execPath, BIN], clientModule: CLIENT, env: { ...process.env, ...env } });
      const second = keeperFor(['packages/core/src/money.ts']);
      const first = await install(run.id);
      const shared = await install(second.id);
      expect([first.installed, shared.installed, shared.notes]).toEqual([['.claude/settings.local.json'], ['.claude/settings.local.json'], []]);
      const settings = readFileSync(path.join(tree, '.claude/settings.local.json'), 'utf8');
      expect(settings).not.toMatch(/--run/);
      const command = JSON.parse(settings).hooks.PreToolUse[0].hooks[0].command as string;
      // The hook asks the fence of the run whose agent calls it.
      const asked = await execa('sh', ['-c', command], { input: fixture('claude-multiedit.json', repo.root), reject: false, env: { ...process.env, ...env, WAVES_RUN: run.id } });
      expect(JSON.parse(asked.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/refused .*package\.json: .*root file/);
      const { WAVES_RUN: _ignored, ...noRun } = process.env;
      const orphan = await execa('sh', ['-c', command], { input: fixture('claude-edit.json', repo.root), reject: false, env: { ...noRun, ...env } });
      expect(JSON.parse(orphan.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/WAVES_RUN/) });
      // The first run ends: the file stays for the second; the second ends: it goes, with its folder.
      await removeIntegrations(tree, first.installed, first.madeDirs, run.id, { ...process.env, ...env });
      expect(existsSync(path.join(tree, '.claude/settings.local.json'))).toBe(true);
      await removeIntegrations(tree, shared.installed, shared.madeDirs, second.id, { ...process.env, ...env });
      expect(readdirSync(tree)).toEqual([]);
      await second.keeper.close();
      rmSync(tree, { recursive: true, force: true });
    });

    it('removes its hook file only inside the tree: never through a link an agent put where .claude was (red team 4)', async () => {
      const tree = path.join(repo.root, '..', `${path.basename(repo.root)}-linked`);
      const victim = path.join(repo.root, '..', `${path.basename(repo.root)}-victim`);
      await mkdir(tree, { recursive: true });
      await mkdir(path.join(victim, '.claude'), { recursive: true });
      const options = { tree, runId: run.id, argv: ['claude'], waves: [process.execPath, BIN], clientModule: CLIENT, env: { ...process.env, ...env } };
      const installed = await installIntegrations(options);
      expect(installed.installed).toEqual(['.claude/settings.local.json']);
      // The agent swaps its .claude for a link to another project's, whose settings the person keeps.
      writeFileSync(path.join(victim, '.claude/settings.local.json'), '{"permissions":{}}\n');
      rmSync(path.join(tree, '.claude'), { recursive: true, force: true });
      symlinkSync(path.join(victim, '.claude'), path.join(tree, '.claude'));
      await removeIntegrations(tree, installed.installed, installed.madeDirs, run.id, options.env);
      expect(readFileSync(path.join(victim, '.claude/settings.local.json'), 'utf8')).toBe('{"permissions":{}}\n');
      expect(lstatSync(path.join(tree, '.claude')).isSymbolicLink()).toBe(true);
      rmSync(tree, { recursive: true, force: true });
      rmSync(victim, { recursive: true, force: true });
    });

    it('replaces the hook file a killed supervisor of an ended run left, and leaves the person\'s own alone (F19)', async () => {
      const tree = path.join(repo.root, '..', `${path.basename(repo.root)}-stale`);
      await mkdir(path.join(tree, '.claude'), { recursive: true });
      const dead = 'resolve-102-20261201T013310230Z';
      const state = env.WAVES_STATE_DIR;
      writeFileSync(path.join(tree, '.claude/settings.local.json'), claudeSettings(shellQuote(['env', `WAVES_STATE_DIR=${state}`, process.execPath, BIN, 'fence', 'check', '--hook', 'claude', '--run', dead])));
      const options = { tree, runId: run.id, argv: ['claude'], waves: [process.execPath, BIN], clientModule: CLIENT, env: { ...process.env, ...env } };
      const replaced = await installIntegrations(options);
      expect(replaced.installed).toEqual(['.claude/settings.local.json']);
      expect(replaced.notes.join('\n')).toMatch(/left by run resolve-102-20261201T013310230Z, which has ended, is replaced/);
      expect(readFileSync(path.join(tree, '.claude/settings.local.json'), 'utf8')).not.toMatch(/--run/);
      await removeIntegrations(tree, replaced.installed, replaced.madeDirs, run.id, options.env);
      // A file of the person's, even one that looks like waves', is never touched.
      writeFileSync(path.join(tree, '.claude/settings.local.json'), '{"hooks":{}}\n');
      const kept = await installIntegrations(options);
      expect([kept.installed, kept.notes.join('\n')]).toEqual([[], expect.stringMatching(/not installed: .* exists/)]);
      rmSync(tree, { recursive: true, force: true });
    });

    it('runs the opencode plugin as opencode would: its tool.execute.before throws the reason when refused', async () => {
      const tree = path.join(repo.root, '..', `${path.basename(repo.root)}-opencode`);
      await mkdir(tree, { recursive: true });
      const installed = await installIntegrations({ tree, runId: run.id, argv: ['/usr/local/bin/opencode', 'run', 'x'], waves: [process.execPath, BIN], clientModule: CLIENT, env: { ...process.env, ...env } });
      expect(installed.installed).toEqual(['.opencode/plugins/waves-fence.js']);
      const plugin = (await import(pathToFileURL(path.join(tree, '.opencode/plugins/waves-fence.js')).href)) as { default: { id: string; server: (ctx: object) => Promise<Record<string, (input: object, output: object) => Promise<void>>> } };
      expect(plugin.default.id).toBe('waves-fence');
      // opencode runs in the run's environment: its WAVES_RUN and WAVES_FENCE_TICKET.
      process.env.WAVES_RUN = run.id;
      process.env.WAVES_FENCE_TICKET = key;
      const hooks = await plugin.default.server({ directory: repo.root, worktree: repo.root });
      const before = hooks['tool.execute.before']!;
      const call = (name: string) => {
        const { input, output } = JSON.parse(fixture(name, repo.root));
        return before(input, output);
      };
      await expect(call('opencode-edit.json')).resolves.toBeUndefined();
      await expect(before({ tool: 'write', sessionID: 's', callID: 'c' }, { args: { filePath: path.join(repo.root, 'pnpm-workspace.yaml'), content: 'x' } })).rejects.toThrow(/refused .*pnpm-workspace\.yaml: .*root file.*\n.*outside your fence/s);
      await expect(before({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: { command: 'ls' } })).resolves.toBeUndefined();
      delete process.env.WAVES_RUN;
      delete process.env.WAVES_FENCE_TICKET;
      await removeIntegrations(tree, installed.installed, installed.madeDirs);
      expect(readdirSync(tree)).toEqual([]);
      rmSync(tree, { recursive: true, force: true });
    });
  });
});

describe('the leases of paths added to the fence', () => {
  it('says an added path lost when its renewal finds the lease ended (released, its path taken by another holder)', async () => {
    const lost: [string, string][] = [];
    const run = keeperFor(['packages/web/'], { ttlMs: 3_000, onLeaseLost: (p, why) => lost.push([p, why]) });
    try {
      const [granted] = await run.keeper.check(['docs/architecture.md'], 'cli');
      expect(granted).toMatchObject({ status: 'granted' });
      const [id] = run.keeper.leaseIds();
      await releaseLease(run.journal, id!, () => new Date());
      await acquireLease(run.journal, { lane: 'docs/architecture.md', holder: 'mallory@other/resolve-1-20261201T000000000Z', ttlMs: 600_000, now: () => new Date() });
      const until = Date.now() + 10_000;
      while (lost.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(lost).toEqual([['docs/architecture.md', expect.stringMatching(new RegExp(`lease ${id} of a path added to the fence is no longer held`))]]);
    } finally {
      await run.keeper.close();
    }
  });
});

