import { describe, expect, it } from 'vitest';
import { AgentsConfigSchema, agentTemplate, commandRule, noRuleReason, OPENCODE_CONFIG_VARIABLE, permissionsWidening, validateTemplate } from '@waves/dispatch';

describe('the commands a preset may run without asking', () => {
  it('allows a verification command as a prefix when its placeholders come last, as the prompt shows it', () => {
    expect(commandRule(['pnpm', 'vitest', 'run', '{paths}'])).toEqual({ claude: 'Bash(pnpm vitest run:*)', opencode: ['pnpm vitest run', 'pnpm vitest run *'] });
    expect(commandRule(['pnpm', 'test'])).toEqual({ claude: 'Bash(pnpm test)', opencode: ['pnpm test'] });
    expect(commandRule(['npx', 'vitest', 'run', 'a b.ts'])).toEqual({ claude: "Bash(npx vitest run 'a b.ts')", opencode: ["npx vitest run 'a b.ts'"] });
  });

  it('makes no rule for a placeholder in the middle nor for a fixed part that runs another program (F7)', () => {
    // The README's own style: `*` in the middle would match `pnpm --filter . exec node -e … test`.
    expect(commandRule(['pnpm', '--filter', '{packages}', 'test'])).toBeNull();
    expect(commandRule(['pnpm', 'run', '--filter={packages}', 'test', '{paths}'])).toBeNull();
    expect(commandRule(['pnpm', 'vitest', '--project={packages}'])).toBeNull();
    expect(noRuleReason(['pnpm', '--filter', '{packages}', 'test'])).toMatch(/in the middle/);
    expect(commandRule(['pnpm', '--filter={packages}', 'test'])).toBeNull();
    const launchers = [
      ['node', '{paths}'], ['sh', '-c', '{paths}'], ['bash', '-lc', 'x {paths}'], ['pnpm', '{paths}'], ['{paths}'], ['ssh', 'host', '{paths}'],
      ['pnpm', 'exec', '{paths}'], ['pnpm', 'dlx', '{paths}'], ['npm', 'exec', '--', '{paths}'], ['npm', 'x', '{paths}'], ['xargs', '{paths}'], ['find', '{paths}'],
      ['find', '.', '-name', '{paths}'], ['timeout', '60', '{paths}'], ['nice', '{paths}'], ['nohup', '{paths}'], ['env', 'CI=1', '{paths}'], ['yarn', '{paths}'],
      ['yarn', 'node', '{paths}'], ['npx', 'tsx', '{paths}'], ['npx', 'vitest', '{paths}'], ['bunx', 'vitest', '{paths}'], ['node', '--test', '{paths}'],
      ['python', '-m', 'pytest', '{paths}'], ['go', 'run', '{paths}'], ['go', 'test', '{paths}'], ['docker', 'run', '{paths}'], ['make', 'test', '{paths}'],
      ['git', 'diff', '{paths}'], ['pnpm', 'run', '{paths}'], ['bun', 'test', '{paths}'], ['deno', 'test', '{paths}'],
    ];
    for (const argv of launchers) expect(commandRule(argv), argv.join(' ')).toBeNull();
    // A test runner behind a package manager, placeholders last: a prefix.
    expect(commandRule(['pnpm', 'test', '--', '{paths}'])?.claude).toBe('Bash(pnpm test --:*)');
    expect(commandRule(['pnpm', '-r', 'test', '{paths}'])?.claude).toBe('Bash(pnpm -r test:*)');
    // A parenthesis or a comma could end Claude Code's rule and start another ("Bash" alone allows all).
    expect(commandRule(['pnpm', 'test) Bash(rm'])).toBeNull();
    expect(commandRule(['pnpm', 'vitest', '--reporter=dot,json'])).toBeNull();
  });

  it("gives the repository's own verify rules only for known test runners, never more than its permissions could (F7)", () => {
    const fromRepository = { fromRepository: true };
    expect(commandRule(['pnpm', 'vitest', 'run', '{paths}'], fromRepository)?.claude).toBe('Bash(pnpm vitest run:*)');
    expect(commandRule(['pnpm', 'test'], fromRepository)?.claude).toBe('Bash(pnpm test)');
    expect(commandRule(['npm', 'run', 'test:unit', '{paths}'], fromRepository)?.claude).toBe('Bash(npm run test:unit:*)');
    expect(commandRule(['vitest', 'run', '{paths}'], fromRepository)?.claude).toBe('Bash(vitest run:*)');
    // What waves init writes: the package manager's test script.
    for (const pm of ['pnpm', 'npm', 'yarn', 'bun']) expect(commandRule([pm, 'test'], fromRepository)?.claude).toBe(`Bash(${pm} test)`);
    expect(commandRule(['bun', 'test', '{paths}'], fromRepository)).toBeNull();
    for (const argv of [['curl', '{paths}'], ['rm', '-rf', '{paths}'], ['curl', 'https://evil.example'], ['pnpm', 'deploy'], ['cp', '{paths}', '/tmp']]) {
      expect(commandRule(argv, fromRepository), argv.join(' ')).toBeNull();
    }
    // The same commands from the person's own config (--config) do get their rules.
    expect(commandRule(['curl', '{paths}'])?.claude).toBe('Bash(curl:*)');
    const claude = agentTemplate('claude', {}, { verify: [['pnpm', 'exec', '{paths}'], ['rm', '-rf', '{paths}'], ['pnpm', 'lint']], verifyFromRepository: true });
    expect(claude.command).toEqual(['claude', '--print', '--allowedTools', 'Bash(pnpm lint)', '--permission-mode', 'acceptEdits', '--model={model}', '{prompt}']);
    const opencode = agentTemplate('opencode', {}, { verify: [['pnpm', '--filter', '{packages}', 'test'], ['rm', '{paths}']], verifyFromRepository: true });
    expect(JSON.parse(opencode.environment![OPENCODE_CONFIG_VARIABLE]!).permission.bash).toEqual({ '*': 'deny' });
  });

  it('gives claude acceptEdits and the verify commands, never a bypass, and the prompt after a flag value', () => {
    const claude = agentTemplate('claude', {}, { verify: [['pnpm', 'vitest', 'run', '{paths}'], ['pnpm', 'lint']] });
    expect(claude.command).toEqual(['claude', '--print', '--allowedTools', 'Bash(pnpm vitest run:*)', 'Bash(pnpm lint)', '--permission-mode', 'acceptEdits', '--model={model}', '{prompt}']);
    expect(claude.command.join(' ')).not.toMatch(/bypass|dangerously/i);
    expect(() => validateTemplate(claude)).not.toThrow();
    const wider = agentTemplate('claude', { claude: { permissions: { commands: [['make', 'check']], allowedTools: ['WebFetch(domain:docs.rs)'] } } }, { verify: [['pnpm', 'lint']] });
    expect(wider.command.slice(2, 7)).toEqual(['--allowedTools', 'Bash(pnpm lint)', 'Bash(make check)', 'WebFetch(domain:docs.rs)', '--permission-mode']);
  });

  it('roots codex in the run directory in the workspace-write sandbox unless the config says otherwise', () => {
    expect(agentTemplate('codex').command).toEqual(['codex', 'exec', '--sandbox', 'workspace-write', '--cd', '{cwd}', '--model={model}', '{prompt}']);
    expect(agentTemplate('codex', { codex: { permissions: { sandbox: 'read-only' } } }).command[3]).toBe('read-only');
  });

  it('gives opencode a per-run config with no ask left, edits allowed and bash only for the verify commands', () => {
    const opencode = agentTemplate('opencode', { opencode: { permissions: { commands: [['make', 'check']] } } }, { verify: [['pnpm', 'vitest', 'run', '{paths}']] });
    expect(opencode.command).toEqual(['opencode', 'run', '--title', 'Issue #{number}: {title}', '--model={model}', '{prompt}']);
    const config = JSON.parse(opencode.environment![OPENCODE_CONFIG_VARIABLE]!);
    expect(config.permission.edit).toBe('allow');
    expect(config.permission.bash).toEqual({ '*': 'deny', 'pnpm vitest run': 'allow', 'pnpm vitest run *': 'allow', 'make check': 'allow' });
    // Headless, an "ask" hangs or is refused: none is left.
    expect(JSON.stringify(config)).not.toContain('"ask"');
  });

  it('names what widens a preset, and a narrower sandbox does not', () => {
    expect(permissionsWidening('codex', { sandbox: 'read-only' })).toBeNull();
    expect(permissionsWidening('codex', { sandbox: 'workspace-write' })).toBeNull();
    expect(permissionsWidening('codex', { sandbox: 'danger-full-access' })).toBe('agents.codex.permissions.sandbox danger-full-access');
    expect(permissionsWidening('claude', { commands: [['make']], allowedTools: ['Bash'] })).toBe('agents.claude.permissions.commands (make) and allowedTools (Bash)');
    expect(permissionsWidening('claude', {})).toBeNull();
    // The tools' own project config in the tree (F9, F14): any agent's to allow, and a widening.
    expect(permissionsWidening('opencode', { projectConfig: true })).toBe('agents.opencode.permissions.projectConfig');
    expect(permissionsWidening('my-claude', { projectConfig: false })).toBeNull();
    expect(AgentsConfigSchema.safeParse({ 'my-claude': { command: ['claude', '{prompt}'], permissions: { projectConfig: true } } }).success).toBe(true);
  });

  it('refuses a permission setting of another preset, of a custom agent, a rule that could be a flag or a placeholder', () => {
    const problems = (agents: unknown) => {
      const parsed = AgentsConfigSchema.safeParse(agents);
      return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    expect(problems({ claude: { permissions: { sandbox: 'danger-full-access' } } })).toEqual(['claude.permissions.sandbox: sandbox is a setting of codex only']);
    expect(problems({ codex: { permissions: { commands: [['make']] } } })).toEqual(['codex.permissions.commands: commands is a setting of claude and opencode only']);
    expect(problems({ mine: { command: ['mine', '{prompt}'], permissions: { commands: [['make']] } } })).toEqual([
      'mine.permissions.commands: mine is not a preset: its own command says what it allows (permissions.commands is for claude and opencode)',
    ]);
    expect(problems({ claude: { permissions: { allowedTools: ['--dangerously-skip-permissions'] } } })[0]).toMatch(/^claude.permissions.allowedTools.0: a Claude Code permission rule/);
    expect(problems({ claude: { permissions: { allowedTools: ['Bash({title})'] } } })[0]).toMatch(/would be read as a placeholder/);
  });
});
