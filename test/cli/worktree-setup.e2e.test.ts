/**
 * `worktree.setup`: the commands run in each worktree of a `--worktree` run before its agent starts
 * (by default the install its lockfile asks for), with a log and a deadline of their own; a setup
 * that fails settles the run failed, saying why, with its leases released and no agent started.
 * The programs are fakes on PATH that record how they were called (test/fixtures/agents/fake-tool.mjs).
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waves } from '../helpers/example-repo.js';
import { fakeTools } from '../helpers/fake-tools.js';
import { alive } from '../helpers/processes.js';
import { useRunRepo } from '../helpers/run-repo.js';

const LOCKFILES = ['pnpm-lock.yaml', 'package-lock.json', 'yarn.lock', '.yarnrc.yml'];
const h = useRunRepo({ clean: ['.waves/worktrees', ...LOCKFILES] });
const ISSUE = ['--from-issues', 'backlog.json', '--wave-size', '1', '--agent', 'claude'];
const TOOLS = ['claude', 'pnpm', 'npm', 'yarn', 'setup-step'];

interface RunRecordView {
  id: string;
  status: string;
  reason: string | null;
  pid: number | null;
  leaseIds: string[];
  setup?: { commands: string[][]; timeoutMs: number; log: string };
  setupResults?: { argv: string[]; status: string; exitCode: number | null }[];
}

function record(): RunRecordView {
  const dir = path.join(h.root, '.dispatch-runs');
  const [name, ...more] = readdirSync(dir).filter((n) => n.endsWith('.json'));
  expect(more).toEqual([]);
  return JSON.parse(readFileSync(path.join(dir, name!), 'utf8')) as RunRecordView;
}

async function forgetWorktree(): Promise<void> {
  await h.repo.git('worktree', 'remove', '--force', '.waves/worktrees/issue-101').catch(() => undefined);
  await h.repo.git('worktree', 'prune').catch(() => undefined);
  await h.repo.git('branch', '-D', 'waves/issue-101').catch(() => undefined);
}

/** A config of one's own (outside the repository) with these keys. */
function myConfig(name: string, config: object): string {
  const file = path.join(h.side, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

async function activeLeases(): Promise<unknown[]> {
  const listed = await waves(['lease', 'list', '--json'], h.root);
  return JSON.parse(listed.stdout) as unknown[];
}

describe('worktree setup', () => {
  it('runs the configured commands in the new worktree, before the agent, which finds what they left', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), TOOLS);
    const trace = path.join(h.side, 'setup.jsonl');
    const config = myConfig('two-steps', { worktree: { setup: [['pnpm', 'install', '--offline'], ['setup-step', 'codegen']] } });
    try {
      const result = await waves(['dispatch', ...ISSUE, '--worktree', '--config', config], h.root, tools.env(trace, { FAKE_TOOL_PNPM: 'marker', GITHUB_TOKEN: 'ghp_setup0123456789abcdef' }));
      expect(result.exitCode, result.stderr).toBe(0);
      const worktree = path.join(h.root, '.waves', 'worktrees', 'issue-101');
      const run = record();
      const calls = tools.calls(trace);
      expect(calls.map((c) => [c.name, ...c.argv.slice(0, 2)])).toEqual([['pnpm', 'install', '--offline'], ['setup-step', 'codegen'], ['claude', '--print', '--permission-mode']]);
      // In the worktree, marked as the run's, without the token; the agent after them sees the install.
      for (const call of calls) {
        expect(call.cwd).toBe(worktree);
        expect(call.run).toBe(run.id);
        expect(call.token).toBe(false);
      }
      expect(calls[2]!.sawMarker).toBe(true);
      // husky (run by an install's prepare script) is kept from writing core.hooksPath into .git.
      expect(calls.map((c) => c.husky)).toEqual(['0', '0', process.env.HUSKY ?? null]);
      expect(run.status).toBe('succeeded');
      expect(run.setupResults!.map((r) => [r.argv[0], r.status])).toEqual([['pnpm', 'passed'], ['setup-step', 'passed']]);
      // Its own log beside the agent's, in the runs folder.
      expect(run.setup!.log).toBe(path.join(h.root, '.dispatch-runs', `${run.id}.setup.log`));
      expect(readFileSync(run.setup!.log, 'utf8')).toContain('$ ["pnpm","install","--offline"]');
    } finally {
      await forgetWorktree();
    }
  }, 30_000);

  it('settles the run failed when a setup command fails, releases its leases and never starts the agent', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), TOOLS);
    const trace = path.join(h.side, 'failing.jsonl');
    writeFileSync(path.join(h.root, 'pnpm-lock.yaml'), 'lockfileVersion: 9.0\n');
    try {
      const result = await waves(['dispatch', ...ISSUE, '--worktree'], h.root, tools.env(trace, { FAKE_TOOL_PNPM: 'fail' }));
      expect(result.exitCode).toBe(1);
      const run = record();
      expect(run.status).toBe('failed');
      expect(run.pid).toBeNull();
      expect(run.reason).toBe(`worktree setup pnpm install --frozen-lockfile --prefer-offline failed with exit code 3; see ${run.id}.setup.log`);
      expect(result.stderr).toContain(`#101 failed: worktree setup pnpm install --frozen-lockfile --prefer-offline failed with exit code 3`);
      expect(tools.calls(trace).map((c) => c.name)).toEqual(['pnpm']);
      expect(readFileSync(run.setup!.log, 'utf8')).toContain('pnpm: the lockfile is out of date');
      expect(await activeLeases()).toEqual([]);
    } finally {
      await forgetWorktree();
    }
  }, 30_000);

  it('stops a setup command past worktree.setupTimeout, with whatever it started, and says so', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), TOOLS);
    const trace = path.join(h.side, 'hanging.jsonl');
    const config = myConfig('hanging', { worktree: { setup: [['pnpm', 'install']], setupTimeout: '1s' } });
    try {
      const result = await waves(['dispatch', ...ISSUE, '--worktree', '--config', config], h.root, tools.env(trace, { FAKE_TOOL_PNPM: 'hang', WAVES_KILL_GRACE_MS: '300' }));
      expect(result.exitCode).toBe(1);
      const run = record();
      expect(run.status).toBe('failed');
      expect(run.reason).toBe(`worktree setup pnpm install did not end within 1 s (worktree.setupTimeout); see ${run.id}.setup.log`);
      const calls = tools.calls(trace);
      expect(calls.map((c) => c.name)).toEqual(['pnpm']);
      // It ignored SIGTERM: SIGKILL after the grace.
      expect(alive(calls[0]!.pid)).toBe(false);
      expect(await activeLeases()).toEqual([]);
    } finally {
      await forgetWorktree();
    }
  }, 30_000);

  it('stops a daemon a setup command left in the worktree (env -i setsid), once the run ends (F8)', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), TOOLS);
    const trace = path.join(h.side, 'daemon.jsonl');
    const pidFile = path.join(h.side, 'setup-daemon.pid');
    rmSync(pidFile, { force: true });
    const daemon = `env -i setsid sh -c 'exec sleep 300' </dev/null >/dev/null 2>&1 & echo $! > '${pidFile}'; sleep 0.3`;
    const config = myConfig('daemon', { worktree: { setup: [['sh', '-c', daemon]] } });
    let pid = 0;
    try {
      const result = await waves(['dispatch', ...ISSUE, '--worktree', '--config', config], h.root, tools.env(trace, { WAVES_KILL_GRACE_MS: '300' }));
      expect(result.exitCode, result.stderr).toBe(0);
      pid = Number(readFileSync(pidFile, 'utf8').trim());
      expect(pid).toBeGreaterThan(0);
      const run = record() as RunRecordView & { strays?: { pid: number; where: string }[] };
      expect(run.status).toBe('succeeded');
      // Stopped by the run's last sweep (it sat in the worktree), named in the record.
      expect(run.strays?.map((s) => s.pid)).toContain(pid);
      expect(alive(pid)).toBe(false);
    } finally {
      if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
      await forgetWorktree();
    }
  }, 30_000);

  it('stops a hanging setup on Ctrl-C: the run is cancelled and its leases released', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), TOOLS);
    const trace = path.join(h.side, 'cancel.jsonl');
    const config = myConfig('cancel', { worktree: { setup: [['pnpm', 'install']] } });
    try {
      const dispatch = waves(['dispatch', ...ISSUE, '--worktree', '--config', config], h.root, tools.env(trace, { FAKE_TOOL_PNPM: 'hang', WAVES_KILL_GRACE_MS: '300' }));
      h.dispatches.push(dispatch);
      while (tools.calls(trace).length === 0) await new Promise((r) => setTimeout(r, 50));
      dispatch.kill('SIGINT');
      const result = await dispatch;
      expect(result.exitCode).toBe(130);
      const run = record();
      expect(run.status).toBe('cancelled');
      expect(run.pid).toBeNull();
      expect(alive(tools.calls(trace)[0]!.pid)).toBe(false);
      expect(tools.calls(trace).map((c) => c.name)).toEqual(['pnpm']);
      expect(await activeLeases()).toEqual([]);
    } finally {
      await forgetWorktree();
    }
  }, 30_000);

  it('is found by waves stop through the run\'s marker when its supervisor is gone (kill -9)', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), TOOLS);
    const trace = path.join(h.side, 'orphan.jsonl');
    const config = myConfig('orphan', { worktree: { setup: [['pnpm', 'install']] } });
    try {
      const started = await waves(['dispatch', ...ISSUE, '--worktree', '--detach', '--config', config], h.root, tools.env(trace, { FAKE_TOOL_PNPM: 'hang', WAVES_KILL_GRACE_MS: '300' }));
      expect(started.exitCode, started.stderr).toBe(0);
      while (tools.calls(trace).length === 0) await new Promise((r) => setTimeout(r, 50));
      const setupPid = tools.calls(trace)[0]!.pid;
      h.started.add(setupPid);
      const before = record();
      process.kill(JSON.parse(readFileSync(path.join(h.root, '.dispatch-runs', `${before.id}.json`), 'utf8')).supervisorPid, 'SIGKILL');
      const stopped = await waves(['stop', '--run', before.id], h.root, { WAVES_KILL_GRACE_MS: '300' });
      expect(stopped.exitCode, stopped.stderr).toBe(0);
      expect(alive(setupPid)).toBe(false);
      expect(record().status).toBe('cancelled');
      expect(await activeLeases()).toEqual([]);
    } finally {
      await forgetWorktree();
    }
  }, 30_000);

  it('defaults to the install the lockfile at the root asks for, and to none with worktree.setup []', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), TOOLS);
    const cases: [string[], string[] | null][] = [
      [['pnpm-lock.yaml'], ['pnpm', 'install', '--frozen-lockfile', '--prefer-offline']],
      [['package-lock.json'], ['npm', 'ci', '--prefer-offline', '--no-audit', '--no-fund']],
      [['yarn.lock'], ['yarn', 'install', '--frozen-lockfile']],
      [['yarn.lock', '.yarnrc.yml'], ['yarn', 'install', '--immutable']],
      [[], null],
    ];
    for (const [files, expected] of cases) {
      const trace = path.join(h.side, `default-${files.join('+') || 'none'}.jsonl`);
      for (const file of LOCKFILES) rmSync(path.join(h.root, file), { force: true });
      for (const file of files) writeFileSync(path.join(h.root, file), '\n');
      try {
        const result = await waves(['dispatch', ...ISSUE, '--worktree'], h.root, tools.env(trace));
        expect(result.exitCode, `${files.join(' ')}: ${result.stderr}`).toBe(0);
        const calls = tools.calls(trace);
        expect(calls.map((c) => [c.name, ...c.argv]).slice(0, -1), files.join(' ')).toEqual(expected ? [expected] : []);
        expect(calls.at(-1)!.name).toBe('claude');
      } finally {
        await forgetWorktree();
        rmSync(path.join(h.root, '.dispatch-runs'), { recursive: true, force: true });
      }
    }
    // Turned off; and never for a run in the shared tree.
    writeFileSync(path.join(h.root, 'pnpm-lock.yaml'), '\n');
    for (const [args, name] of [[['--worktree', '--config', myConfig('off', { worktree: { setup: [] } })], 'off'], [[], 'shared']] as const) {
      const trace = path.join(h.side, `none-${name}.jsonl`);
      try {
        const result = await waves(['dispatch', ...ISSUE, ...args], h.root, tools.env(trace));
        expect(result.exitCode, result.stderr).toBe(0);
        expect(tools.calls(trace).map((c) => c.name), name).toEqual(['claude']);
        expect(record().setup, name).toBeUndefined();
      } finally {
        await forgetWorktree();
        rmSync(path.join(h.root, '.dispatch-runs'), { recursive: true, force: true });
      }
    }
  }, 90_000);

  it('shows the setup commands in the --dry-run preview and its JSON, and runs nothing', async () => {
    writeFileSync(path.join(h.root, 'pnpm-lock.yaml'), '\n');
    const text = await waves(['dispatch', '--dry-run', ...ISSUE, '--worktree'], h.root);
    expect(text.exitCode, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    const cd = lines.indexOf('cd .waves/worktrees/issue-101');
    expect(lines.slice(cd + 1, cd + 3)).toEqual(['# worktree setup, before the agent starts:', 'pnpm install --frozen-lockfile --prefer-offline']);
    expect(lines[cd + 3]).toMatch(/^claude --print /);
    const json = JSON.parse((await waves(['dispatch', '--dry-run', '--json', ...ISSUE, '--worktree'], h.root)).stdout);
    expect(json.waves[0].issues[0].setup).toEqual([['pnpm', 'install', '--frozen-lockfile', '--prefer-offline']]);
    const shared = JSON.parse((await waves(['dispatch', '--dry-run', '--json', ...ISSUE], h.root)).stdout);
    expect(shared.waves[0].issues[0].setup).toEqual([]);
    expect(existsSync(path.join(h.root, '.waves', 'worktrees'))).toBe(false);
  }, 30_000);
});
