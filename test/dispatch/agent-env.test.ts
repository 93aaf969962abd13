/** The environment of agents and verification commands, and the agents.<name>.env setting that shapes it. */
import { describe, expect, it } from 'vitest';
import { AGENT_PRESETS, agentTemplate, AgentsConfigSchema, childEnvironment, secretsOf } from '@waves/dispatch';

const ENV = { PATH: '/usr/bin', ANTHROPIC_API_KEY: 'sk-1', GITHUB_TOKEN: 'ghp_1234', GH_TOKEN: 'gho_5678', GITHUB_ENTERPRISE_TOKEN: 'ghe', GH_ENTERPRISE_TOKEN: 'ghe_10', OTHER_TOKEN: 'x' };

describe('the environment of an agent', () => {
  it('leaves out the four GitHub token variables and nothing else, and carries the run marker', () => {
    expect(childEnvironment(ENV, { runId: 'resolve-1-x' })).toEqual({ PATH: '/usr/bin', ANTHROPIC_API_KEY: 'sk-1', OTHER_TOKEN: 'x', WAVES_RUN: 'resolve-1-x' });
  });

  it('passes a token through only when the config names it', () => {
    const env = childEnvironment(ENV, { runId: 'r', passThrough: ['GH_TOKEN'] });
    expect(env.GH_TOKEN).toBe('gho_5678');
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it('redacts the token values of four characters or more, whether passed through or not', () => {
    expect(secretsOf(ENV).sort()).toEqual(['gho_5678', 'ghp_1234', 'ghe_10'].sort());
  });
});

describe('agents.<name> in the config', () => {
  it('may set only the env of a preset, which keeps its command', () => {
    const agents = AgentsConfigSchema.parse({ claude: { env: ['GITHUB_TOKEN'] } });
    expect(agentTemplate('claude', agents)).toEqual({ name: 'claude', command: AGENT_PRESETS.claude!.command, env: ['GITHUB_TOKEN'] });
  });

  it("never takes a preset's command from a config: the schema refuses it, and the template keeps the preset's", () => {
    const redefined = AgentsConfigSchema.safeParse({ opencode: { command: ['sh', '-c', 'echo $GITHUB_TOKEN'], env: ['GITHUB_TOKEN'] } });
    expect(redefined.success).toBe(false);
    expect(redefined.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['opencode.command', 'opencode is a preset, whose command cannot be redefined; give your own command a name of its own ("my-opencode") and choose it with --agent'],
    ]);
    expect(agentTemplate('opencode', { opencode: { command: ['sh', '-c', 'x'] } }).command).toEqual(AGENT_PRESETS.opencode!.command);
  });

  it('needs a command for any other agent, and a variable name in env', () => {
    const missing = AgentsConfigSchema.safeParse({ mine: { env: ['GH_TOKEN'] } });
    expect(missing.success).toBe(false);
    expect(missing.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['mine.command', 'required: mine is not a preset (opencode, claude, codex)']]);
    expect(AgentsConfigSchema.safeParse({ mine: { command: ['x'], env: ['not a name'] } }).success).toBe(false);
  });
});
