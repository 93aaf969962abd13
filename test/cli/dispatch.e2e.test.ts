import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleRepo, waves } from '../helpers/example-repo.js';

/** What a real POSIX shell makes of a command line. */
function argvOf(line: string): string[] {
  return execFileSync('sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' }).split('\0').slice(0, -1);
}

const CONFIG = {
  agents: { mytool: { command: ['mytool', '--title', '{title}', '--model', '{model}', '{prompt}'] } },
  routing: {
    categories: { architecture: 'strong' },
    tiers: { default: { model: 'cheap/model' }, strong: { model: 'strong/model' }, review: { model: 'best/model', manualOnly: true } },
  },
  verify: [['pnpm', '--filter', '{packages}', 'test']],
};

describe('waves dispatch --dry-run', () => {
  it('prints, per wave, one pasteable command per issue for each preset and a custom agent', async () => {
    const repo = await exampleRepo(CONFIG);
    try {
      for (const agent of ['opencode', 'claude', 'codex', 'mytool']) {
        const result = await waves(['dispatch', '--dry-run', '--top', '10', '--from-issues', 'backlog.json', '--agent', agent, '--all-waves'], repo.root);
        expect(result.exitCode, result.stderr).toBe(0);
        expect(result.stdout).toContain('# Wave 1 · parallel · 3 agent(s)');
        expect(result.stdout).toContain('# Wave 2 · parallel · 2 agent(s)');
        expect(result.stdout).toMatch(/# #101 Checkout charges twice.* — tier default, model cheap\/model: no category label → default → cheap\/model/);
        const commandLines = result.stdout.split('\n').filter((l) => l.startsWith(`${agent} `));
        expect(commandLines).toHaveLength(5);
      }
      // Nothing was written or leased.
      expect(existsSync(path.join(repo.root, '.waves', 'worktrees'))).toBe(false);
      expect(existsSync(path.join(repo.root, '.waves', 'leases.jsonl'))).toBe(false);
      expect((await repo.git('status', '--porcelain')).stdout).toBe('');
    } finally {
      await repo.dispose();
    }
  }, 60_000);

  it('gives the exact argv in --json, which the shell-quoted preview reproduces', async () => {
    const repo = await exampleRepo(CONFIG);
    try {
      const json = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'mytool', '--json'], repo.root);
      expect(json.exitCode, json.stderr).toBe(0);
      const plan = JSON.parse(json.stdout);
      const first = plan.waves[0];
      expect(first.commands).toHaveLength(3);
      const issue = first.issues[0];
      expect(issue.command.slice(0, 5)).toEqual(['mytool', '--title', issue.title, '--model', 'cheap/model']);
      expect(issue.command[5]).toContain('<<<ISSUE-');
      expect(issue.command[5]).toContain('  - pnpm --filter @shop/api @shop/payments test\n');
      const text = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'mytool'], repo.root);
      // The first command of the preview: from its line to the line before the next comment.
      const lines = text.stdout.split('\n');
      const start = lines.findIndex((l) => l.startsWith('mytool '));
      const end = lines.findIndex((l, i) => i > start && l.startsWith('# '));
      expect(argvOf(lines.slice(start, end).join('\n').trimEnd())).toEqual(issue.command);
    } finally {
      await repo.dispose();
    }
  });

  it('routes by category, says so, and lets --model override routing for the whole run', async () => {
    const repo = await exampleRepo(CONFIG);
    try {
      const issues = JSON.parse(readFileSync(path.join(repo.root, 'backlog.json'), 'utf8'));
      issues.find((i: { number: number }) => i.number === 102).labels.push({ name: 'category:architecture' });
      writeFileSync(path.join(repo.root, 'backlog.json'), JSON.stringify(issues));
      const routed = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json'], repo.root);
      expect(routed.stdout).toContain('tier strong, model strong/model: category:architecture → strong → strong/model');
      const forced = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--model', 'other/model'], repo.root);
      expect(forced.stdout).toContain('--model other/model overrides routing for every agent of this run.');
      expect(forced.stdout).not.toContain('strong/model');
    } finally {
      await repo.dispose();
    }
  });

  it('shows the git worktree add of each issue with --worktree, and creates nothing', async () => {
    const repo = await exampleRepo(CONFIG);
    try {
      const result = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--worktree', '--base', 'main'], repo.root);
      expect(result.stdout).toContain('git worktree add --no-track -b waves/issue-101 .waves/worktrees/issue-101 main');
      expect(result.stdout).toContain('cd .waves/worktrees/issue-101');
      expect(readdirSync(repo.root)).not.toContain('.waves');
    } finally {
      await repo.dispose();
    }
  });

  it('refuses an unknown agent and an unsafe template with exit code 2', async () => {
    const repo = await exampleRepo({ agents: { unsafe: { command: ['tool', '{title}'] } } });
    try {
      for (const name of ['nope', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
        const unknown = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', name], repo.root);
        expect(unknown.exitCode, name).toBe(2);
        expect(unknown.stderr.trim(), name).toBe(`waves: --agent: unknown agent ${JSON.stringify(name)} (known: claude, codex, opencode, unsafe)`);
      }
      const unsafe = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'unsafe'], repo.root);
      expect(unsafe.exitCode).toBe(2);
      expect(unsafe.stderr).toMatch(/could become a flag/);
      // Issue text as the code of an interpreter, or after a flag that takes no value: one line, exit 2.
      for (const command of [['sh', '-c', '{title}'], ['/bin/echo', '-e', '{title}'], ['env', 'bash', '-lc', 'echo {prompt}']]) {
        await writeFile(path.join(repo.root, 'waves.config.json'), JSON.stringify({ agents: { unsafe: { command } } }));
        const refused = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'unsafe'], repo.root);
        expect(refused.exitCode, command.join(' ')).toBe(2);
        expect(refused.stderr.trim().split('\n'), command.join(' ')).toEqual([expect.stringMatching(/^waves: config agents: agent unsafe: /)]);
      }
      // …unless the agent marks a flag of its own as taking a value (never a code flag such as -e).
      await writeFile(path.join(repo.root, 'waves.config.json'), JSON.stringify({ agents: { unsafe: { command: ['/bin/echo', '-n', '{title}'], valueFlags: ['-n'] } } }));
      expect((await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'unsafe'], repo.root)).exitCode).toBe(0);
      await writeFile(path.join(repo.root, 'waves.config.json'), JSON.stringify({ agents: { unsafe: { command: ['/bin/echo', '-e', '{title}'], valueFlags: ['-e'] } } }));
      const declared = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'unsafe'], repo.root);
      expect(declared.exitCode).toBe(2);
      expect(declared.stderr.trim()).toBe('waves: config agents: agent unsafe: valueFlags names "-e", a flag that runs code in many tools: issue text may never be its value');
      // The red team's forms, each one line, exit 2.
      for (const command of [['make', '-f', '/dev/null', '--eval={title}'], ['vim', '+{title}'], ['tmux', 'new', '-d', '--', '{title}'], ['setsid', '--', '{title}'], ['env', 'BASH_ENV={title}', 'bash', 'f'], ['git', '-c', 'alias.x=!{title}', 'x']]) {
        await writeFile(path.join(repo.root, 'waves.config.json'), JSON.stringify({ agents: { unsafe: { command } } }));
        const refused = await waves(['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'unsafe'], repo.root);
        expect(refused.exitCode, command.join(' ')).toBe(2);
        expect(refused.stderr.trim().split('\n'), command.join(' ')).toEqual([expect.stringMatching(/^waves: config agents: agent unsafe: /)]);
      }
      await writeFile(path.join(repo.root, 'waves.config.json'), JSON.stringify({ agents: { unsafe: { command: ['tool', '{title}'] } } }));
      // A real run needs the root at the top of its repository: fences and worktrees are relative to it.
      const nested = await waves(['dispatch', '--from-issues', 'backlog.json', '--root', 'packages', '--agent', 'claude'], repo.root);
      expect(nested.exitCode).toBe(2);
      expect(nested.stderr.trim()).toMatch(/^waves: --root packages: inside the git repository .*, not at its top/);
      expect(existsSync(path.join(repo.root, '.dispatch-runs'))).toBe(false);
    } finally {
      await repo.dispose();
    }
  });
});
