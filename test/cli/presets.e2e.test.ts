/**
 * The presets as a person runs them: `waves dispatch --agent claude|codex|opencode` starts the
 * program of that name found on PATH — here a fake that records its argv, its directory and
 * opencode's per-run config — with the flags that let it edit unattended, and its Bash limited to
 * the verification commands; a repository's own config may not widen them.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waves } from '../helpers/example-repo.js';
import { fakeTools } from '../helpers/fake-tools.js';
import { useRunRepo } from '../helpers/run-repo.js';

const VERIFY = [['pnpm', 'vitest', 'run', '{paths}'], ['pnpm', '--filter', '{packages}', 'lint']];
const h = useRunRepo({ config: { verify: VERIFY }, clean: ['.waves/worktrees'] });
const ISSUE = ['--from-issues', 'backlog.json', '--wave-size', '1'];

async function forgetWorktree(): Promise<void> {
  await h.repo.git('worktree', 'remove', '--force', '.waves/worktrees/issue-101').catch(() => undefined);
  await h.repo.git('worktree', 'prune').catch(() => undefined);
  await h.repo.git('branch', '-D', 'waves/issue-101').catch(() => undefined);
}

function records(): { status: string; reason: string | null; cwd: string; agentEnv?: Record<string, string> }[] {
  const dir = path.join(h.root, '.dispatch-runs');
  return readdirSync(dir).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(path.join(dir, n), 'utf8')));
}

describe('the presets, run', () => {
  it('start claude in acceptEdits with the verify commands allowed, codex in workspace-write rooted in its worktree, opencode with a per-run config', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), ['claude', 'codex', 'opencode']);
    const trace = path.join(h.side, 'presets.jsonl');
    const worktree = path.join(h.root, '.waves', 'worktrees', 'issue-101');
    for (const agent of ['claude', 'codex', 'opencode']) {
      rmSync(trace, { force: true });
      const result = await waves(['dispatch', ...ISSUE, '--agent', agent, '--worktree'], h.root, tools.env(trace, { GITHUB_TOKEN: 'ghp_presets0123456789' }));
      expect(result.exitCode, `${agent}: ${result.stderr}`).toBe(0);
      const [call, ...more] = tools.calls(trace);
      expect(more).toEqual([]);
      expect(call!.name).toBe(agent);
      expect(call!.cwd).toBe(worktree);
      expect(call!.token).toBe(false);
      const prompt = call!.argv.at(-1)!;
      expect(prompt).toMatch(/^You are an isolated worker for issue #101/);
      const flags = call!.argv.slice(0, -1);
      if (agent === 'claude') {
        // The lint command has a placeholder in the middle: no rule (harvest runs it anyway).
        expect(flags).toEqual(['--print', '--allowedTools', 'Bash(pnpm vitest run:*)', '--permission-mode', 'acceptEdits']);
      } else if (agent === 'codex') {
        expect(flags).toEqual(['exec', '--sandbox', 'workspace-write', '--cd', worktree]);
      } else {
        expect(flags).toEqual(['run', '--title', 'Issue #101: Checkout charges twice when the payment provider times out']);
        const config = JSON.parse(call!.opencodeConfig!);
        expect(config.permission.edit).toBe('allow');
        expect(config.permission.bash).toEqual({ '*': 'deny', 'pnpm vitest run': 'allow', 'pnpm vitest run *': 'allow' });
        expect(JSON.stringify(config)).not.toContain('"ask"');
        // Sealed with the record: the supervisor sets it from there.
        expect(records()[0]!.agentEnv).toEqual({ OPENCODE_CONFIG_CONTENT: call!.opencodeConfig });
      }
      // Nothing of the person's own config was written: no opencode.json, no .claude in the tree.
      expect(existsSync(path.join(worktree, 'opencode.json'))).toBe(false);
      await forgetWorktree();
      rmSync(path.join(h.root, '.dispatch-runs'), { recursive: true, force: true });
    }
  }, 60_000);

  it('roots codex in the shared tree without --worktree', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), ['codex']);
    const trace = path.join(h.side, 'codex.jsonl');
    const result = await waves(['dispatch', ...ISSUE, '--agent', 'codex'], h.root, tools.env(trace));
    expect(result.exitCode, result.stderr).toBe(0);
    const [call] = tools.calls(trace);
    expect(call!.cwd).toBe(h.root);
    expect(call!.argv.slice(0, 5)).toEqual(['exec', '--sandbox', 'workspace-write', '--cd', h.root]);
  });

  it("widens a preset only from a config named with --config, never from the repository's own", async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), ['claude', 'codex']);
    const trace = path.join(h.side, 'widen.jsonl');
    const own = path.join(h.root, 'waves.config.json');
    const before = readFileSync(own, 'utf8');
    const widening = {
      claude: { permissions: { allowedTools: ['Bash'] } },
      codex: { permissions: { sandbox: 'danger-full-access' } },
    } as const;
    try {
      for (const [agent, settings] of Object.entries(widening)) {
        writeFileSync(own, JSON.stringify({ ...JSON.parse(before), agents: { [agent]: settings } }));
        for (const dryRun of [[], ['--dry-run']]) {
          const refused = await waves(['dispatch', ...ISSUE, '--agent', agent, ...dryRun], h.root, tools.env(trace));
          expect(refused.exitCode, `${agent} ${dryRun.join('')}`).toBe(2);
          expect(refused.stderr.trim().split('\n')).toEqual([
            `waves: config waves.config.json: agents.${agent}.permissions.${agent === 'claude' ? 'allowedTools (Bash)' : 'sandbox danger-full-access'} widens what the agent may do: a repository's own config cannot (an agent could commit one for the next run); put the setting in a config of your own and name it with --config FILE`,
          ]);
        }
      }
      expect(tools.calls(trace)).toEqual([]);
      // Narrowing is anyone's: a read-only codex from the repository's config.
      writeFileSync(own, JSON.stringify({ ...JSON.parse(before), agents: { codex: { permissions: { sandbox: 'read-only' } } } }));
      const narrowed = await waves(['dispatch', ...ISSUE, '--agent', 'codex'], h.root, tools.env(trace));
      expect(narrowed.exitCode, narrowed.stderr).toBe(0);
      expect(tools.calls(trace)[0]!.argv.slice(0, 3)).toEqual(['exec', '--sandbox', 'read-only']);
    } finally {
      writeFileSync(own, before);
    }
    // The same widening from a config of one's own.
    rmSync(trace, { force: true });
    rmSync(path.join(h.root, '.dispatch-runs'), { recursive: true, force: true });
    const mine = path.join(h.side, 'mine.json');
    writeFileSync(mine, JSON.stringify({ verify: VERIFY, agents: { claude: { permissions: { commands: [['make', 'check']], allowedTools: ['WebFetch(domain:docs.rs)'] } } } }));
    const result = await waves(['dispatch', ...ISSUE, '--agent', 'claude', '--config', mine], h.root, tools.env(trace));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(tools.calls(trace)[0]!.argv.slice(0, -1)).toEqual([
      '--print', '--allowedTools', 'Bash(pnpm vitest run:*)', 'Bash(make check)', 'WebFetch(domain:docs.rs)', '--permission-mode', 'acceptEdits',
    ]);
  }, 60_000);

  it("gives the repository's own verify no rule that launches other programs (F7), and refuses a model that would be a flag (F10)", async () => {
    const own = path.join(h.root, 'waves.config.json');
    const before = readFileSync(own, 'utf8');
    try {
      writeFileSync(own, JSON.stringify({ ...JSON.parse(before), verify: [['pnpm', 'exec', '{paths}'], ['curl', '{paths}'], ['pnpm', 'vitest', 'run', '{paths}']] }));
      const dry = await waves(['dispatch', ...ISSUE, '--agent', 'claude', '--dry-run', '--json'], h.root);
      expect(dry.exitCode, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('Bash(pnpm vitest run:*)');
      expect(dry.stdout).not.toContain('Bash(pnpm exec');
      expect(dry.stdout).not.toContain('Bash(curl');
      for (const model of ['--share', '--attach=https://evil.example', '-x']) {
        writeFileSync(own, JSON.stringify({ ...JSON.parse(before), routing: { tiers: { default: { model } } } }));
        const refused = await waves(['dispatch', ...ISSUE, '--agent', 'opencode', '--dry-run'], h.root);
        expect(refused.exitCode, model).toBe(2);
        expect(refused.stderr.trim().split('\n')).toHaveLength(1);
        expect(refused.stderr).toContain('which the agent would read as a flag');
      }
      writeFileSync(own, before);
      const flag = await waves(['dispatch', ...ISSUE, '--agent', 'opencode', '--dry-run', '--model=--share'], h.root);
      expect(flag.exitCode).toBe(2);
      expect(flag.stderr.trim().split('\n')).toEqual(['waves: --model: "--share" starts with "-", which the agent would read as a flag']);
    } finally {
      writeFileSync(own, before);
    }
  }, 60_000);

  it('harvest compares verify with the config the dispatch read it from, not the repository\'s when --config was used (F13)', async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), ['codex']);
    const trace = path.join(h.side, 'f13.jsonl');
    rmSync(path.join(h.root, '.dispatch-runs'), { recursive: true, force: true });
    const mine = path.join(h.side, 'f13.json');
    writeFileSync(mine, JSON.stringify({ verify: [['git', '--version']] }));
    const result = await waves(['dispatch', ...ISSUE, '--agent', 'codex', '--config', mine], h.root, tools.env(trace));
    expect(result.exitCode, result.stderr).toBe(0);
    const sealedConfig = (records()[0] as unknown as { verify: { config: string } }).verify.config;
    expect(sealedConfig).toBe(mine);
    // Harvest with the repository's own config (another verify): no false "differs" note.
    const harvested = await waves(['harvest', '--json'], h.root, tools.env(trace));
    const notes = JSON.parse(harvested.stdout).runs.flatMap((r: { witness?: { notes: string[] } }) => r.witness?.notes ?? []);
    expect(notes.join(' '), harvested.stderr).not.toMatch(/differs from the one in force/);
    // With the same --config, changed since the dispatch: the difference is noted.
    writeFileSync(mine, JSON.stringify({ verify: [['git', 'status']] }));
    const again = await waves(['harvest', '--json', '--config', mine], h.root, tools.env(trace));
    const notesAgain = JSON.parse(again.stdout).runs.flatMap((r: { witness?: { notes: string[] } }) => r.witness?.notes ?? []);
    expect(notesAgain.join(' '), again.stderr).toMatch(/differs from the one in force/);
  }, 60_000);

  it("does not start claude or opencode in a tree whose own agent config widens them, unless the person's config allows it (F9, F14)", async () => {
    const tools = fakeTools(path.join(h.side, 'bin'), ['claude', 'opencode']);
    const trace = path.join(h.side, 'project.jsonl');
    const planted = {
      claude: ['.claude/settings.local.json', JSON.stringify({ permissions: { allow: ['Bash'] } })],
      opencode: ['opencode.json', JSON.stringify({ agent: { build: { permission: { bash: 'allow' } } } })],
    } as const;
    const own = path.join(h.root, 'waves.config.json');
    const before = readFileSync(own, 'utf8');
    try {
      for (const [agent, [file, text]] of Object.entries(planted)) {
        rmSync(path.join(h.root, '.dispatch-runs'), { recursive: true, force: true });
        rmSync(trace, { force: true });
        const where = path.join(h.root, file);
        mkdirSync(path.dirname(where), { recursive: true });
        writeFileSync(where, text);
        await h.repo.git('add', file);
        await h.repo.git('commit', '-qm', `plant ${file}`);
        const result = await waves(['dispatch', ...ISSUE, '--agent', agent, '--worktree'], h.root, tools.env(trace));
        expect(tools.calls(trace), agent).toEqual([]);
        const [record] = records();
        expect(record!.status, result.stderr).toBe('failed');
        expect(record!.reason).toContain(`${file} ${agent === 'claude' ? 'sets permissions.allow' : 'sets "agent"'}`);
        expect(record!.reason).toContain(`agents.${agent}.permissions.projectConfig`);
        await forgetWorktree();
        // The repository's own config may not allow it.
        writeFileSync(own, JSON.stringify({ ...JSON.parse(before), agents: { [agent]: { permissions: { projectConfig: true } } } }));
        const refused = await waves(['dispatch', ...ISSUE, '--agent', agent, '--dry-run'], h.root);
        expect(refused.exitCode).toBe(2);
        expect(refused.stderr).toContain(`agents.${agent}.permissions.projectConfig widens what the agent may do`);
        writeFileSync(own, before);
        // The person's own may.
        rmSync(path.join(h.root, '.dispatch-runs'), { recursive: true, force: true });
        const mine = path.join(h.side, `allow-${agent}.json`);
        writeFileSync(mine, JSON.stringify({ verify: VERIFY, agents: { [agent]: { permissions: { projectConfig: true } } } }));
        const allowed = await waves(['dispatch', ...ISSUE, '--agent', agent, '--worktree', '--config', mine], h.root, tools.env(trace));
        expect(allowed.exitCode, allowed.stderr).toBe(0);
        expect(tools.calls(trace)).toHaveLength(1);
        await forgetWorktree();
        await h.repo.git('rm', '-q', file);
        await h.repo.git('commit', '-qm', `unplant ${file}`);
      }
    } finally {
      writeFileSync(own, before);
      rmSync(path.join(h.root, '.dispatch-runs'), { recursive: true, force: true });
    }
  }, 90_000);
});
