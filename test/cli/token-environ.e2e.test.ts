/**
 * The GitHub token in no process an agent or a verification command can read: a fake agent (and a
 * verify command) walks up its ancestors while they are the user's and reads each one's initial
 * environment from /proc/<pid>/environ — the supervisor, `waves dispatch`, `waves harvest`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleRepo, ROOT, waves } from '../helpers/example-repo.js';
import { alive, killAll, pidsOfRuns, waitFor } from '../helpers/processes.js';
import type { TempRepo } from '../helpers/temp-repo.js';

const THIEF = path.join(ROOT, 'test/fixtures/agents/environ-thief.mjs');
const TOKEN = 'ghp_environThief0123456789abcdef';
const OTHER = 'gho_otherToken9876543210fedcba';
const IDENTITY = { GIT_AUTHOR_NAME: 'H', GIT_AUTHOR_EMAIL: 'h@example.invalid', GIT_COMMITTER_NAME: 'H', GIT_COMMITTER_EMAIL: 'h@example.invalid' };

let repo: TempRepo | null = null;
afterEach(async () => {
  // A detached run may still be settling its record when a test ends: stop it before the folder goes.
  if (repo) killAll(pidsOfRuns(repo.root));
  await repo?.dispose();
  repo = null;
});

interface Seen {
  pid: number;
  cmdline: string;
  environ: string;
  mine: string[];
}
const seen = (file: string): Seen[] => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Seen) : []);

describe.runIf(process.platform === 'linux')('the GitHub token and /proc/<pid>/environ', () => {
  it('is in the environment of no ancestor of an agent (supervisor, dispatch) nor of a verify command (harvest)', async () => {
    repo = await exampleRepo({ agents: { thief: { command: [process.execPath, THIEF, '--issue', '{number}', '{prompt}'] } }, verify: [[process.execPath, THIEF]] });
    const root = repo.root;
    const agentOut = `${root}-agent.jsonl`;
    const verifyOut = `${root}-verify.jsonl`;
    const tokens = { GITHUB_TOKEN: TOKEN, GH_TOKEN: OTHER, ...IDENTITY };
    const dispatch = await waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'thief', '--wave-size', '1', '--worktree'], root, { ...tokens, THIEF_OUT: agentOut });
    expect(dispatch.exitCode, dispatch.stderr).toBe(0);
    const byAgent = seen(agentOut);
    // It did read its ancestors: its supervisor (`waves __run`) and `waves dispatch`.
    expect(byAgent.some((s) => s.cmdline.includes('__run'))).toBe(true);
    expect(byAgent.some((s) => s.cmdline.includes(' dispatch '))).toBe(true);
    expect(byAgent.every((s) => s.mine.length === 0)).toBe(true);
    for (const s of byAgent) {
      expect(s.environ, s.cmdline).not.toContain(TOKEN);
      expect(s.environ, s.cmdline).not.toContain(OTHER);
    }
    const harvest = await waves(['harvest', '--json'], root, { ...tokens, THIEF_OUT: verifyOut });
    expect(harvest.exitCode, harvest.stderr).not.toBe(2);
    const byVerify = seen(verifyOut);
    expect(byVerify.some((s) => s.cmdline.includes(' harvest'))).toBe(true);
    for (const s of byVerify) {
      expect(s.environ, s.cmdline).not.toContain(TOKEN);
      expect(s.environ, s.cmdline).not.toContain(OTHER);
    }
  }, 90_000);

  for (const detach of [false, true]) it(`still hands the token to an agent whose entry in your own config names it, and to that agent only${detach ? ' (--detach: the dispatch exits at once)' : ''}`, async () => {
    repo = await exampleRepo({});
    const root = repo.root;
    const out = `${root}-agent.jsonl`;
    const mine = `${root}-mine.json`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(mine, JSON.stringify({ agents: { thief: { command: [process.execPath, THIEF, '--issue', '{number}', '{prompt}'], env: ['GITHUB_TOKEN'] } } }));
    const dispatch = await waves(['dispatch', '--config', mine, '--from-issues', 'backlog.json', '--agent', 'thief', '--wave-size', '1', '--worktree', ...(detach ? ['--detach'] : [])], root, { GITHUB_TOKEN: TOKEN, THIEF_OUT: out, ...IDENTITY });
    expect(dispatch.exitCode, dispatch.stderr).toBe(0);
    const until = Date.now() + 20_000;
    while (seen(out).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    const byAgent = seen(out);
    expect(byAgent.length).toBeGreaterThan(0);
    expect(byAgent[0]!.mine).toEqual(['GITHUB_TOKEN']);
    for (const s of byAgent) expect(s.environ, s.cmdline).not.toContain(TOKEN);
    // The detached supervisor settles the run after the agent wrote its trace: let it end.
    await waitFor('the runs to end', () => pidsOfRuns(root).every((pid) => !alive(pid)));
  }, 90_000);
});
