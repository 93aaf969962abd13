/**
 * runVerify on real processes: whatever a verification command leaves running is gone when its
 * result is known; the GitHub tokens stay out of its environment and out of the log; a flood of
 * output is logged, or capped by logs.maxBytes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runVerify } from '@waves/dispatch';
import { ROOT } from '../helpers/example-repo.js';
import { alive, killAll } from '../helpers/processes.js';

const FAKE_VERIFY = path.join(ROOT, 'test/fixtures/agents/fake-verify.mjs');
const TOKEN = 'ghp_verify0123456789';
let dir: string;
const started: number[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'waves-verify-'));
});
afterEach(async () => {
  killAll(started);
  started.length = 0;
  await rm(dir, { recursive: true, force: true });
});

async function verify(mode: string, extra: { env?: Record<string, string>; maxBytes?: number; argv?: string[] } = {}) {
  const script = path.join(dir, 'script.json');
  const trace = path.join(dir, 'trace.jsonl');
  await writeFile(script, JSON.stringify({ default: mode }));
  const log = path.join(dir, 'verify-1-x.log');
  const env = { ...process.env, FAKE_VERIFY_SCRIPT: script, FAKE_VERIFY_TRACE: trace, ...extra.env };
  const results = await runVerify([extra.argv ?? [process.execPath, FAKE_VERIFY, 'check']], { cwd: dir, log, timeoutMs: 20_000, graceMs: 200, env, maxBytes: extra.maxBytes ?? null });
  const traced = existsSync(trace) ? readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { pid?: number; grandchild?: number }) : [];
  for (const t of traced) for (const pid of [t.pid, t.grandchild]) if (pid) started.push(pid);
  return { results, log: readFileSync(log, 'utf8'), logFile: log, grandchildren: traced.flatMap((t) => (t.grandchild ? [t.grandchild] : [])) };
}

describe('runVerify', () => {
  it('stops what a verification command left running (a SIGTERM-ignoring grandchild) before it reports', async () => {
    const run = await verify('grandchild');
    expect(run.results.map((r) => r.status)).toEqual(['passed']);
    expect(run.grandchildren).toHaveLength(1);
    expect(alive(run.grandchildren[0])).toBe(false);
  });

  it('keeps the GitHub tokens out of a verification command, and out of its log', async () => {
    const run = await verify('printEnv', { env: { GITHUB_TOKEN: TOKEN, GH_ENTERPRISE_TOKEN: TOKEN, ANTHROPIC_API_KEY: 'sk-kept' } });
    expect(run.results.map((r) => r.status)).toEqual(['passed']);
    expect(run.log).not.toMatch(/GITHUB_TOKEN=|GH_ENTERPRISE_TOKEN=/);
    expect(run.log).toContain('ANTHROPIC_API_KEY=sk-kept');
    expect(run.log).toMatch(/WAVES_RUN=verify-1-x#1/);
  });

  it('redacts the tokens of its environment from whatever a command prints', async () => {
    const run = await verify('pass', { env: { GH_TOKEN: TOKEN }, argv: [process.execPath, '-e', `console.log('leaked ${TOKEN}')`] });
    expect(run.results.map((r) => r.status)).toEqual(['passed']);
    expect(run.log).toContain('leaked [REDACTED]');
    expect(run.log).not.toContain(TOKEN);
  });

  it('logs more than 100 MB of a command\'s output, and caps it at logs.maxBytes when set', async () => {
    const flood = [process.execPath, '-e', "const b = Buffer.alloc(1 << 20, 120); let n = 110; const go = () => { while (n > 0) { n--; if (!process.stdout.write(b)) return process.stdout.once('drain', go); } }; go();"];
    const big = await verify('pass', { argv: flood });
    expect(big.results.map((r) => r.status)).toEqual(['passed']);
    expect((await stat(big.logFile)).size).toBeGreaterThan(110 * 1024 * 1024);
    await rm(big.logFile);
    const capped = await verify('pass', { argv: flood, maxBytes: 1000 });
    expect(capped.results.map((r) => r.status)).toEqual(['passed']);
    expect(capped.log).toContain('[waves] log truncated at 1000 bytes');
    expect(capped.log.length).toBeLessThan(2000);
  }, 60_000);
});
