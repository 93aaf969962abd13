/**
 * What waves takes in from files and standard input: issue fields it cleans or refuses (NUL
 * bytes, states, dates), and JSON parse errors that give a position and never the file's text.
 */
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, exampleRepo, waves } from '../helpers/example-repo.js';
import { TempRepo } from '../helpers/temp-repo.js';

const repos: TempRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.dispose()));
});
async function tempRepo(files: Record<string, string>): Promise<TempRepo> {
  const repo = await TempRepo.create({ 'src/a.ts': 'export const a = 1;\n', ...files });
  repos.push(repo);
  return repo;
}

function issue(fields: Record<string, unknown>) {
  return { number: 1, title: 'Fix the cart', body: 'Touch `src/a.ts`', labels: [], state: 'OPEN', createdAt: '2026-01-01T00:00:00Z', url: null, ...fields };
}

/** The one line of stderr of a failed command (and there is only one). */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

describe('issue fields at intake', () => {
  it('strips NUL bytes from titles, bodies and labels of an issues file: the plan and the dry run work, and no argv carries one', async () => {
    const repo = await tempRepo({
      'issues.json': JSON.stringify([issue({ title: 'Fix\u0000 the cart', body: 'Touch `src/a.ts`\u0000 only', labels: [{ name: 'bug\u0000' }] })]),
    });
    const plan = await waves(['plan', '--from-issues', 'issues.json', '--json'], repo.root);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('\\u0000');
    expect(JSON.parse(plan.stdout).waves[0].issues[0].title).toBe('Fix the cart');
    for (const agent of ['opencode', 'claude', 'codex']) {
      const dry = await waves(['dispatch', '--dry-run', '--json', '--from-issues', 'issues.json', '--agent', agent], repo.root);
      expect(dry.exitCode, dry.stderr).toBe(0);
      const command: string[] = JSON.parse(dry.stdout).waves[0].issues[0].command;
      expect(command.length).toBeGreaterThan(0);
      expect(command.some((arg) => arg.includes('\0')), agent).toBe(false);
    }
  });

  it('accepts open and closed in any case, and refuses another state naming its JSON path', async () => {
    const repo = await tempRepo({
      'ok.json': JSON.stringify([issue({ number: 1, state: 'OPEN' }), issue({ number: 2, state: 'closed' }), issue({ number: 3, state: 'Open' })]),
      'bad.json': JSON.stringify([issue({ number: 1 }), issue({ number: 2, state: 'WHATEVER' })]),
    });
    const ok = await waves(['plan', '--from-issues', 'ok.json', '--json'], repo.root);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).summary.evaluated).toBe(2);
    const bad = await waves(['plan', '--from-issues', 'bad.json'], repo.root);
    expect(bad.exitCode).toBe(2);
    expect(oneLine(bad.stderr)).toMatch(/bad\.json: \$\[1\]\.state: .*open.*closed/);
  });

  it('refuses a createdAt that is not an ISO date, naming its JSON path', async () => {
    for (const [field, value] of [
      ['createdAt', 'yesterday'],
      ['createdAt', '2026-13-45T00:00:00Z'],
      ['created_at', 'not a date'],
    ] as const) {
      const repo = await tempRepo({ 'issues.json': JSON.stringify([issue({}), issue({ number: 2, createdAt: undefined, [field]: value })]) });
      const result = await waves(['plan', '--from-issues', 'issues.json'], repo.root);
      expect(result.exitCode, `${field} ${value}: ${result.stderr}`).toBe(2);
      expect(oneLine(result.stderr)).toContain(`$[1].${field}`);
    }
  });
});

describe('JSON parse errors', () => {
  // Looks like /etc/shadow: none of it may reach the output.
  const SECRET = 'root:$6$Zq8Ws3cretSalt$hashedPasswordValue:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n';
  const words = SECRET.split(/[^A-Za-z0-9]+/).filter((w) => w.length >= 3 && !/^\d+$/.test(w));

  function expectNoSecret(output: string) {
    for (const word of words) expect(output, word).not.toContain(word);
  }

  it('an issues file: the position only, never the text', async () => {
    const repo = await tempRepo({ 'shadow-like': SECRET });
    const result = await waves(['plan', '--from-issues', 'shadow-like'], repo.root);
    expect(result.exitCode).toBe(2);
    expect(oneLine(result.stderr)).toMatch(/shadow-like: not valid JSON \(line 1, column 1\)/);
    expectNoSecret(result.stdout + result.stderr);
  });

  it('standard input: the position only, never the text', async () => {
    const repo = await tempRepo({});
    const result = await execa(process.execPath, [BIN, 'plan', '--from-issues', '-'], { cwd: repo.root, reject: false, input: `[\n  {"number": 1, ${SECRET}` });
    expect(result.exitCode).toBe(2);
    expect(oneLine(result.stderr)).toMatch(/standard input: not valid JSON \(line 2, column 17\)/);
    expectNoSecret(result.stdout + result.stderr);
  });

  it('a config file: the position only, never the text', async () => {
    const repo = await tempRepo({ 'waves.config.json': `{"defaults": ${SECRET}}` });
    const result = await waves(['plan', '--from-issues', '-'], repo.root);
    expect(result.exitCode).toBe(2);
    expect(oneLine(result.stderr)).toMatch(/config waves\.config\.json: not valid JSON \(line 1, column 14\)/);
    expectNoSecret(result.stdout + result.stderr);
  });

  it("compare's baseline file: the position only, never the text", async () => {
    const repo = await exampleRepo({});
    repos.push(repo);
    await repo.write({ 'baseline.json': SECRET });
    const result = await waves(['compare', 'baseline.json', '--from-issues', 'backlog.json'], repo.root);
    expect(result.exitCode).toBe(2);
    expect(oneLine(result.stderr)).toMatch(/baseline\.json: not valid JSON \(line 1, column 1\)/);
    expectNoSecret(result.stdout + result.stderr);
  });

  it('an empty file and a truncated one: still a position', async () => {
    const repo = await tempRepo({ 'empty.json': '', 'cut.json': '[{"number": 1,\n "title": "x' });
    const empty = await waves(['plan', '--from-issues', 'empty.json'], repo.root);
    expect(empty.exitCode).toBe(2);
    expect(oneLine(empty.stderr)).toMatch(/empty\.json: not valid JSON \(line 1, column 1: the text ends early\)/);
    const cut = await waves(['plan', '--from-issues', 'cut.json'], repo.root);
    expect(oneLine(cut.stderr)).toMatch(/cut\.json: not valid JSON \(line 2, column 13: the text ends early\)/);
  });
});
