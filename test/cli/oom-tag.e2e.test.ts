/**
 * The run's `oom_score_adj` tag, written by its agent onto processes that are not the run's: a
 * process of the person started after the agent, another run's supervisor, agent and child. The
 * tag alone never gets them stopped — at the run's end nor by `waves stop`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleRepo, ROOT, waves } from '../helpers/example-repo.js';
import { alive, waitFor } from '../helpers/processes.js';
import type { TempRepo } from '../helpers/temp-repo.js';

const TAGGER = path.join(ROOT, 'test/fixtures/agents/tagger.mjs');
const CONFIG = { agents: { tagger: { command: [process.execPath, TAGGER, '--issue', '{number}', '{prompt}'] } } };

let repo: TempRepo | null = null;
const victims: number[] = [];
afterEach(async () => {
  for (const pid of victims.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await repo?.dispose();
  repo = null;
});

describe.runIf(process.platform === 'linux')("an agent that puts its run's oom_score_adj tag on other processes", () => {
  it("does not get a process of the person started after it stopped, at the run's end", async () => {
    repo = await exampleRepo(CONFIG);
    const dir = `${repo.root}-tagger`;
    mkdirSync(dir, { recursive: true });
    const dispatch = waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'tagger', '--wave-size', '1', '--worktree'], repo.root, { TAGGER_DIR: dir, TAGGER_MODE: 'person' });
    await waitFor('the agent to start', () => existsSync(path.join(dir, 'ready')), 20_000);
    // The person's own process, outside the repository, started after the agent.
    const victim = spawn('sleep', ['6666'], { cwd: '/tmp', detached: true, stdio: 'ignore' });
    victim.unref();
    victims.push(victim.pid!);
    writeFileSync(path.join(dir, 'victim'), String(victim.pid));
    const result = await dispatch;
    expect(result.exitCode, result.stderr).toBe(0);
    // The agent did tag it.
    expect(readFileSync(path.join(dir, 'tagged'), 'utf8')).toMatch(new RegExp(`^${victim.pid} \\d+$`));
    expect(alive(victim.pid!)).toBe(true);
    const stop = await waves(['stop', '--all'], repo.root);
    expect(stop.exitCode, stop.stderr).not.toBe(2);
    expect(alive(victim.pid!)).toBe(true);
  }, 90_000);

  it('does not get it stopped by waves stop once the dispatch and the supervisor were killed (-9) either', async () => {
    repo = await exampleRepo(CONFIG);
    const dir = `${repo.root}-tagger`;
    mkdirSync(dir, { recursive: true });
    const dispatch = waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'tagger', '--wave-size', '1', '--worktree'], repo.root, { TAGGER_DIR: dir, TAGGER_MODE: 'person', TAGGER_HOLD_MS: '60000' });
    await waitFor('the agent to start', () => existsSync(path.join(dir, 'ready')), 20_000);
    const victim = spawn('sleep', ['6666'], { cwd: '/tmp', detached: true, stdio: 'ignore' });
    victim.unref();
    victims.push(victim.pid!);
    writeFileSync(path.join(dir, 'victim'), String(victim.pid));
    await waitFor('the agent to tag it', () => existsSync(path.join(dir, 'tagged')), 20_000);
    // Long enough for the supervisor's tracker to have looked (every 25 ms) and sealed what it saw.
    await new Promise((r) => setTimeout(r, 1_500));
    const runs = path.join(repo.root, '.dispatch-runs');
    const record = JSON.parse(readFileSync(path.join(runs, readdirSync(runs).find((n) => /^resolve-.*\.json$/.test(n))!), 'utf8')) as { pid: number; supervisorPid: number };
    victims.push(record.pid);
    dispatch.kill('SIGKILL');
    process.kill(record.supervisorPid, 'SIGKILL');
    await dispatch;
    const stop = await waves(['stop', '--all'], repo.root, { WAVES_KILL_GRACE_MS: '300' });
    expect(stop.exitCode, stop.stderr).not.toBe(2);
    // The agent was stopped; the person's process was not.
    await waitFor('the agent to be stopped', () => !alive(record.pid), 20_000);
    expect(alive(victim.pid!)).toBe(true);
  }, 90_000);

  it("does not cancel another run whose supervisor, agent and child it tagged", async () => {
    repo = await exampleRepo(CONFIG);
    const dir = `${repo.root}-tagger`;
    mkdirSync(dir, { recursive: true });
    const result = await waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'tagger', '--wave-size', '2', '--concurrency', '2', '--worktree'], repo.root, { TAGGER_DIR: dir, TAGGER_MODE: 'cross' });
    expect(readFileSync(path.join(dir, 'tagged'), 'utf8').split(' ')).toHaveLength(4);
    expect(result.stderr).not.toMatch(/#102 (cancelled|failed)/);
    expect(result.exitCode, result.stderr).toBe(0);
  }, 90_000);
});
