/**
 * runWave through the library, for what the CLI cannot stage on demand: a lease taken by someone
 * else between planning and spawning, and a run that outlives its leases' time.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { acquireLease, agentTemplate, cloneTag, DEFAULT_PROMPT_TEMPLATE, listLeases, readJournal, runWave, type RunEvent, type RunWaveOptions } from '@waves/dispatch';
import { analyzePlan, type PlanInput } from '@waves/planner';
import { BIN, FAKE_AGENT_CONFIG } from '../helpers/example-repo.js';
import { issue, NOW } from '../helpers/issues.js';
import { makeRepo } from '../helpers/repo.js';

let root: string;
const saved = { ...process.env };
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'waves-run-'));
});
afterEach(async () => {
  process.env = { ...saved };
  await rm(root, { recursive: true, force: true });
});

/** Four issues on four files: wave 1 holds #1–#3 (wave size 3), #4 waits for wave 2. */
function setUp(script: Record<string, unknown>, ttlMs = 60_000) {
  const issues = [1, 2, 3, 4].map((n) => issue(n, { body: `- \`src/f${n}.ts\`` }));
  const input: PlanInput = {
    issues,
    repo: makeRepo({ root, files: ['src/f1.ts', 'src/f2.ts', 'src/f3.ts', 'src/f4.ts'] }),
    options: { waveSize: 3 },
    now: NOW,
  };
  const analysis = analyzePlan(input);
  const events: RunEvent[] = [];
  const journal = path.join(root, '.waves', 'leases.jsonl');
  const options = async (): Promise<RunWaveOptions> => {
    const scriptFile = path.join(root, 'script.json');
    await writeFile(scriptFile, JSON.stringify(script));
    process.env.FAKE_AGENT_SCRIPT = scriptFile;
    return {
      root,
      runsDir: path.join(root, '.dispatch-runs'),
      journal,
      holder: 'me',
      ttlMs,
      agentName: 'fake',
      analysis,
      plan: analysis.plan,
      waveIndex: 1,
      dispatch: {
        agent: agentTemplate('fake', FAKE_AGENT_CONFIG),
        routing: undefined,
        modelOverride: null,
        promptTemplate: DEFAULT_PROMPT_TEMPLATE,
        issues: new Map(issues.map((i) => [i.number, i])),
        protectedPaths: [],
        packagesOf: () => [],
      },
      worktreeBase: null,
      concurrency: 3,
      timeoutMs: null,
      detach: false,
      supervisor: [process.execPath, BIN, '__run'],
      now: () => new Date(),
      onEvent: (event) => events.push(event),
    };
  };
  return { analysis, journal, events, options };
}

describe('runWave', () => {
  it('skips an issue whose lease was taken after planning and takes the next candidate that fits', async () => {
    const t = setUp({ default: { sleepMs: 50 } });
    expect(t.analysis.plan.waves.map((w) => w.issues.map((i) => i.number))).toEqual([[1, 2, 3], [4]]);
    await acquireLease(t.journal, { lane: 'src/f2.ts', holder: 'someone-else', ttlMs: 60_000, now: () => new Date() });
    const result = await runWave(await t.options());
    expect(result.records.map((r) => [r.issue.number, r.status])).toEqual([
      [1, 'succeeded'],
      [3, 'succeeded'],
      [4, 'succeeded'],
    ]);
    expect(result.skipped).toEqual([{ number: 2, reason: expect.stringMatching(/^src\/f2\.ts is leased by someone-else until /) }]);
    expect(t.events).toContainEqual({ type: 'candidate', number: 4, replacing: 2 });
    // Only someone-else's lease is left; each run held its own in its own name.
    const { leases } = await listLeases(t.journal, () => new Date());
    expect(leases.map((l) => [l.lane, l.holder])).toEqual([['src/f2.ts', 'someone-else']]);
    const { events } = await readJournal(t.journal);
    const holders = events.flatMap((e) => (e.op === 'acquire' ? [e.holder] : []));
    const clone = await cloneTag(root);
    expect(clone).toMatch(/^[0-9a-f]{8}$/);
    expect(holders.filter((h) => h.startsWith('me/')).sort()).toEqual(result.records.map((r) => `me/${clone}/${r.id}`).sort());
  }, 30_000);

  it('keeps the leases of a run that outlives their time, and frees them when it ends', async () => {
    const t = setUp({ default: { sleepMs: 50 }, 1: { sleepMs: 7_000 } }, 3_000);
    const running = runWave(await t.options());
    await new Promise((r) => setTimeout(r, 5_000));
    const { leases } = await listLeases(t.journal, () => new Date());
    expect(leases.map((l) => l.lane)).toEqual(['src/f1.ts']);
    const result = await running;
    expect(result.records.every((r) => r.status === 'succeeded')).toBe(true);
    expect((await listLeases(t.journal, () => new Date())).leases).toEqual([]);
  }, 30_000);

  it('returns from a cancelled wave with no timer of its own left behind to hold the process open', async () => {
    const t = setUp({ default: { hang: true } });
    process.env.WAVES_KILL_GRACE_MS = '200';
    // Every timer of a second or more that runWave sets, until it fires or is cleared.
    const pending = new Set<unknown>();
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const handle = realSet(() => {
        pending.delete(handle);
        fn(...args);
      }, ms);
      if ((ms ?? 0) >= 1_000) pending.add(handle);
      return handle;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation((handle) => {
      pending.delete(handle);
      realClear(handle);
    });
    try {
      const controller = new AbortController();
      const running = runWave({ ...(await t.options()), signal: controller.signal, graceMs: 200 });
      while (!t.events.some((e) => e.type === 'started')) await new Promise((r) => realSet(r, 20));
      controller.abort();
      const result = await running;
      expect(result.cancelled).toBe(true);
      expect(result.records.length).toBeGreaterThan(0);
      expect(result.records.every((r) => r.status === 'cancelled')).toBe(true);
      expect(pending.size).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
  }, 30_000);
});
