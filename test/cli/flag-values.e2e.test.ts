/**
 * Values a flag or the config gives that waves cannot honour are refused with one line naming
 * where they came from (exit 2), before anything starts: durations past what a Node timer can
 * wait (2^31−1 ms, about 24.8 days), and values that look like flags (`--top -1`).
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, exampleRepo, FAKE_AGENT_CONFIG, TEST_STATE_DIR, waves } from '../helpers/example-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo;
beforeAll(async () => {
  repo = await exampleRepo({ agents: FAKE_AGENT_CONFIG });
}, 60_000);
afterAll(async () => {
  await repo.dispose();
});

async function refused(args: string[], config: unknown = { agents: FAKE_AGENT_CONFIG }) {
  await repo.write({ 'waves.config.json': JSON.stringify(config) });
  const result = await waves(args, repo.root);
  expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines, args.join(' ')).toHaveLength(1);
  return lines[0]!;
}

describe('durations', () => {
  it('refuses a --timeout past 24.8 days instead of timing every agent out at once', async () => {
    expect(await refused(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--timeout', '1000h'])).toMatch(/^waves: --timeout: .*24\.8 days.*"1000h"/);
  });

  it('refuses a leases.ttl past 24.8 days in the config of waves dispatch, naming the key', async () => {
    const line = await refused(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake'], { agents: FAKE_AGENT_CONFIG, leases: { ttl: '8000h' } });
    expect(line).toMatch(/^waves: config leases\.ttl: .*24\.8 days.*"8000h"/);
  });

  it('refuses a verification timeout past 24.8 days, from --verify-timeout or verifyTimeout', async () => {
    expect(await refused(['harvest', '--verify-timeout', '1000h'])).toMatch(/^waves: --verify-timeout: .*24\.8 days.*"1000h"/);
    // A run to harvest, so that the config is read.
    await repo.write({ 'waves.config.json': JSON.stringify({ agents: FAKE_AGENT_CONFIG }) });
    const dispatched = await waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', '1'], repo.root, { WAVES_KILL_GRACE_MS: '300' });
    expect(dispatched.exitCode, dispatched.stderr).toBe(0);
    expect(await refused(['harvest'], { agents: FAKE_AGENT_CONFIG, verifyTimeout: '1000h' })).toMatch(/^waves: config verifyTimeout: .*24\.8 days.*"1000h"/);
  });
});

describe('values that look like flags', () => {
  it('says what is wrong with a negative number instead of "argument is ambiguous"', async () => {
    expect(await refused(['plan', '--from-issues', 'backlog.json', '--top', '-1'])).toBe('waves: --top: expected an integer of at least 1, got -1');
    expect(await refused(['graph', '--hubs', '-1'])).toBe('waves: --hubs: expected an integer of at least 0, got -1');
    expect(await refused(['lease', 'acquire', 'packages/api', '--ttl', '-5m'])).toMatch(/^waves: --ttl: expected a duration .*"-5m"/);
  });

  it('says how to write a value that starts with a dash', async () => {
    expect(await refused(['plan', '--repo', '-x/y'])).toBe('waves: --repo: a value starting with - must be written --repo=-x/y');
  });
});

describe('numbers past 2^53−1, files that are devices, control characters in a value (red team 2, #17)', () => {
  it('refuses an integer past 2^53−1 naming the maximum, in a flag and in explain', async () => {
    expect(await refused(['plan', '--from-issues', 'backlog.json', '--top', '99999999999999999999'])).toBe(
      'waves: --top: expected an integer of at most 9007199254740991 (2^53−1), got 99999999999999999999',
    );
    // A million issues took 4 GB and ended out of memory (red team L5): ten thousand at most.
    expect(await refused(['plan', '--from-issues', 'backlog.json', '--top', '10001'])).toBe('waves: --top: expected an integer of at most 10,000, got 10001');
    expect(await refused(['explain', '99999999999999999999', '--from-issues', 'backlog.json'])).toBe(
      'waves: explain: expected an issue number of at most 9007199254740991 (2^53−1), got 99999999999999999999',
    );
  });

  it('refuses a device named on the command line at once, before reading it: compare, --truth-graph, --from-issues', async () => {
    expect(await refused(['compare', '/dev/zero', '--from-issues', 'backlog.json'])).toBe('waves: /dev/zero: cannot read the baseline: it is a device, not a file');
    expect(await refused(['backtest', '--truth-graph', '/dev/zero'])).toBe('waves: --truth-graph /dev/zero: is a device, not a file');
    expect(await refused(['plan', '--from-issues', '/dev/zero'])).toBe('waves: issues file /dev/zero: is a device, not a file');
    expect(await refused(['plan', '--from-issues', '/dev/null'])).toBe('waves: issues file /dev/null: is a device, not a file');
    // Standard input is read up to the same bound as an issues file.
    const zero = await execa(process.execPath, [BIN, 'plan', '--from-issues', '-'], { cwd: repo.root, reject: false, inputFile: '/dev/zero', env: { WAVES_STATE_DIR: TEST_STATE_DIR } });
    expect(zero.exitCode).toBe(2);
    expect(zero.stderr.trim()).toBe('waves: standard input: larger than 64 MB; not read further');
  });

  it('refuses a FIFO baseline no program writes to with one line instead of hanging, and reads one whose writer comes', async () => {
    const fifo = path.join(repo.root, '..', `${path.basename(repo.root)}-baseline.fifo`);
    rmSync(fifo, { force: true });
    execFileSync('mkfifo', [fifo]);
    try {
      expect(await refused(['compare', fifo, '--from-issues', 'backlog.json'])).toBe(`waves: ${fifo}: cannot read the baseline: it is a FIFO no program wrote to within 3 s`);
      const plan = await waves(['plan', '--from-issues', 'backlog.json', '--json'], repo.root);
      expect(plan.exitCode, plan.stderr).toBe(0);
      const compare = waves(['compare', fifo, '--from-issues', 'backlog.json'], repo.root);
      // A writer that opens the FIFO after waves did.
      await new Promise((r) => setTimeout(r, 500));
      writeFileSync(fifo, plan.stdout);
      const result = await compare;
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Baseline: the plan of /);
    } finally {
      rmSync(fifo, { force: true });
    }
  }, 30_000);

  it('shows a run id with a line break or an escape as visible escapes, on one line', async () => {
    for (const command of ['stop', 'harvest']) {
      const line = await refused([command, '--run', 'a\nb\u001b[31m']);
      expect(line).toMatch(/^waves: --run a\\u000ab\\u001b\[31m: no such run under \.dispatch-runs\//);
    }
  });
});
