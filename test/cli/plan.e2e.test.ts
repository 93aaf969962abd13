import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanSchema } from '@waves/planner';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const REPO = path.join(FIXTURES, 'cli-repo');
const ISSUES = path.join(FIXTURES, 'cli-issues.json');

function waves(args: string[], options: { input?: string; cwd?: string } = {}) {
  return execa('node', [BIN, ...args], { cwd: options.cwd ?? ROOT, reject: false, ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' }), env: { NO_COLOR: '1' } });
}

let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(path.join(tmpdir(), 'waves-e2e-'));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('waves plan, end to end', () => {
  it('prints a table per wave, the other buckets and the summary line', async () => {
    const result = await waves(['plan', '--from-issues', ISSUES, '--root', REPO, '--max-waves', '1']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^Wave 1 · parallel · 3 issue\(s\)/);
    expect(out).not.toContain('Wave 2');
    expect(out).toContain('Deferred (1)'); // #2 imports #1's file: it would be wave 2, past --max-waves 1
    expect(out).not.toContain('#6'); // a pull request
    expect(out).not.toContain('#7'); // closed
    expect(out).toContain('Triage (1)');
    // Control characters in titles never reach the terminal raw.
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u202e');
    expect(out).toContain('\\u001b[31mRed');
    expect(out.trimEnd().split('\n').at(-1)).toBe('5 total issue(s) evaluated · 3 dispatchable · 0 subdivide · 1 triage · 1 deferred');
  });

  it('prints only the plan JSON with --json, valid against the exported schema', async () => {
    const result = await waves(['plan', '--from-issues', ISSUES, '--root', REPO, '--json', '--max-waves', '3']);
    expect(result.exitCode).toBe(0);
    const plan = PlanSchema.parse(JSON.parse(result.stdout));
    expect(plan.schemaVersion).toBe(1);
    expect(plan.waves.map((w) => w.issues.map((i) => i.number))).toEqual([[1, 3, 5], [2]]);
    expect(plan.conflicts).toContainEqual({ a: 1, b: 2, kind: 'import', detail: 'packages/beta/src/index.ts imports packages/alpha/src/index.ts' });
    expect(plan.repo.root).toBe(REPO);
  });

  it('reads the backlog from standard input with -', async () => {
    const { readFile } = await import('node:fs/promises');
    const result = await waves(['plan', '--from-issues', '-', '--root', REPO, '--json'], { input: await readFile(ISSUES, 'utf8') });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).summary.evaluated).toBe(5);
  });

  it('honours --top, --wave-size, --granularity and --contention-depth', async () => {
    const result = await waves(['plan', '--from-issues', ISSUES, '--root', REPO, '--json', '--top', '2', '--wave-size', '1', '--contention-depth', '0', '--granularity', 'package']);
    expect(result.exitCode).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan.options).toEqual({ inference: 'suggest', inferenceThreshold: 0.7, top: 2, waveSize: 1, maxWaves: 2, granularity: 'package', contentionDepth: 0 });
    expect(plan.waves.map((w: { issues: { paths: string[] }[] }) => w.issues[0]!.paths)).toEqual([['packages/alpha/'], ['packages/beta/']]);
  });

  it('plans an issue with a 1 MB body and unusual Unicode normally', async () => {
    const body = `Fix \`packages/alpha/src/util.ts\`.\n${'ü‮𝒳 \u0007 — '.repeat(120_000)}`;
    const file = path.join(temp, 'big.json');
    await writeFile(file, JSON.stringify([{ number: 9, title: 'Big 🚀', body, labels: [] }]));
    const result = await waves(['plan', '--from-issues', file, '--root', REPO, '--json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).waves[0].issues[0].paths).toEqual(['packages/alpha/src/util.ts']);
  });

  it('shows help that teaches', async () => {
    const result = await waves(['plan', '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: waves plan');
    expect(result.stdout).toContain('--from-issues FILE');
    expect(result.stdout).toContain('Examples:');
    const main = await waves(['--help']);
    expect(main.stdout).toContain('plan');
  });
});

describe('waves plan on bad input', () => {
  const cases: { name: string; args: string[]; message: RegExp }[] = [
    { name: 'an issues file that is not JSON', args: ['--from-issues', path.join(FIXTURES, 'cli-issues-not-json.json')], message: /cli-issues-not-json\.json: not valid JSON/ },
    { name: 'an issues file with wrong types', args: ['--from-issues', path.join(FIXTURES, 'cli-issues-bad-types.json')], message: /cli-issues-bad-types\.json: \$\[1\]\.number: .*number/ },
    { name: 'a missing issues file', args: ['--from-issues', path.join(FIXTURES, 'nope.json')], message: /nope\.json: no such file/ },
    { name: 'an unknown flag', args: ['--from-issues', ISSUES, '--wave-sise', '2'], message: /unknown option --wave-sise \(did you mean --wave-size\?\)/ },
    { name: '--top abc', args: ['--from-issues', ISSUES, '--top', 'abc'], message: /--top: expected an integer, got "abc"/ },
    { name: '--wave-size 0', args: ['--from-issues', ISSUES, '--wave-size', '0'], message: /--wave-size: expected an integer of at least 1, got 0/ },
    { name: 'an unknown granularity', args: ['--from-issues', ISSUES, '--granularity', 'atom'], message: /--granularity: expected one of file, dir, package/ },
    { name: 'a root that does not exist', args: ['--from-issues', ISSUES, '--root', path.join(FIXTURES, 'no-such-dir')], message: /--root .*no-such-dir: no such directory/ },
    { name: 'a root that is a file', args: ['--from-issues', ISSUES, '--root', ISSUES], message: /--root .*cli-issues\.json: not a directory/ },
    { name: 'no issue source', args: [], message: /no issue source.*--from-issues FILE/ },
    { name: 'a flag without its value', args: ['--from-issues'], message: /option --from-issues needs a value/ },
  ];
  for (const c of cases) {
    it(`rejects ${c.name} with one line on stderr and exit code 2`, async () => {
      const result = await waves(['plan', '--root', REPO, ...c.args]);
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^waves: /);
      expect(lines[0]).toMatch(c.message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('shows the stack with --debug', async () => {
    const result = await waves(['plan', '--root', REPO, '--from-issues', path.join(FIXTURES, 'nope.json'), '--debug']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/\n\s+at /);
  });

  it('ends quietly when its reader stops early (waves plan | head): no EPIPE trace, the exit code of the command', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn('node', [BIN, 'plan', '--from-issues', ISSUES, '--root', REPO], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    // The reader is gone before waves writes its first line.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at .*\(node:/);
    expect(code).toBe(0);
  });

  it('rejects an unknown command with a hint', async () => {
    const result = await waves(['plna']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe('waves: unknown command "plna" (did you mean plan?); see waves --help');
  });

  it('refuses a root it cannot list as a repository (/proc, /sys, /dev) with one line (exit 2), never an internal error, writing nothing there', async () => {
    for (const args of [['plan', '--root', '/proc', '--from-issues', ISSUES], ['plan', '--root', '/sys', '--from-issues', ISSUES], ['graph', '--root', '/proc'], ['lease', 'acquire', 'x', '--root', '/proc'], ['graph', '--root', '/dev'], ['plan', '--root', '/dev/shm', '--from-issues', ISSUES], ['graph', '--root', '/sys/fs/cgroup']]) {
      const result = await waves(args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(/^waves: (root|--root) \/(proc|sys|dev)/)]);
    }
    expect(existsSync('/dev/.waves')).toBe(false);
    expect(existsSync('/sys/fs/cgroup/.waves')).toBe(false);
  });

  it('takes a command or schema name like toString as unknown, with one line (exit 2)', async () => {
    for (const args of [['toString'], ['constructor'], ['__proto__'], ['schema', 'toString'], ['schema', 'constructor']]) {
      const result = await waves(args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(/^waves: (unknown command|schema: expected one of)/)]);
    }
  });
});
