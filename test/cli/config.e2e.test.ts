import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { planOptionsFromConfig } from '@waves/cli';
import { TempRepo } from '../helpers/temp-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');

function waves(args: string[], cwd = ROOT) {
  return execa('node', [BIN, ...args], { cwd, reject: false, stdin: 'ignore' });
}

const ISSUES = [
  { number: 1, title: 'Refund flow', body: 'Make refunds work.', labels: [], state: 'OPEN', createdAt: '2026-01-01T00:00:00Z' },
  { number: 2, title: 'Docs', body: 'Edit `docs/guide.md`.', labels: [{ name: 'urgent' }], state: 'OPEN', createdAt: '2026-01-02T00:00:00Z' },
  { number: 3, title: 'Core types', body: 'Edit `src/core/types.ts`.', labels: [], state: 'OPEN', createdAt: '2026-01-03T00:00:00Z' },
];

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.dispose();
  repo = undefined;
});

async function setup(config: unknown): Promise<TempRepo> {
  repo = await TempRepo.create({
    'src/payments/refund.ts': 'export const refund = 1;\n',
    'src/core/types.ts': 'export type T = 1;\n',
    'docs/guide.md': '# guide\n',
    'issues.json': JSON.stringify(ISSUES),
    'waves.config.json': JSON.stringify(config),
  });
  return repo;
}

describe('waves.config.json', () => {
  it('sets lanes with keywords, serial paths, priority labels and the defaults of flags', async () => {
    const r = await setup({
      lanes: { payments: { paths: ['src/payments/**'], keywords: ['refund'] } },
      serial: ['src/core/**'],
      priorityLabels: { urgent: 0 },
      defaults: { fromIssues: 'issues.json', maxWaves: 5 },
    });
    const result = await waves(['plan', '--json'], r.root);
    expect(result.exitCode, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan.options.maxWaves).toBe(5);
    expect(plan.waves.map((w: { kind: string; issues: { number: number; paths: string[] }[] }) => [w.kind, w.issues.map((i) => [i.number, i.paths])])).toEqual([
      ['parallel', [[2, ['docs/guide.md']], [1, ['src/payments/']]]],
      ['serial_singleton', [[3, ['src/core/types.ts']]]],
    ]);
  });

  it('passes the hub rule and its thresholds on to the planner', () => {
    expect(planOptionsFromConfig({ hubs: 'fan-in', hubThreshold: 0.1, hubMinDependents: 5 })).toMatchObject({ hubs: 'fan-in', hubThreshold: 0.1, hubMinDependents: 5 });
    expect(planOptionsFromConfig({}).hubs).toBeUndefined();
  });

  it('lets flags override the file', async () => {
    const r = await setup({ defaults: { fromIssues: 'issues.json', maxWaves: 5, top: 1 } });
    const plan = JSON.parse((await waves(['plan', '--json', '--top', '2', '--max-waves', '1'], r.root)).stdout);
    expect(plan.options).toMatchObject({ top: 2, maxWaves: 1 });
  });

  it('reads another file with --config', async () => {
    const r = await setup({});
    await writeFile(path.join(r.root, 'other.json'), JSON.stringify({ defaults: { top: 1 } }));
    const plan = JSON.parse((await waves(['plan', '--json', '--from-issues', 'issues.json', '--config', 'other.json'], r.root)).stdout);
    expect(plan.summary.evaluated).toBe(1);
  });

  const bad: [string, unknown, RegExp][] = [
    ['an unknown key, with the nearest known one', { lane: {} }, /^waves: config waves\.config\.json: unknown key "lane" \(did you mean "lanes"\?\) in \(top level\)$/],
    ['an unknown nested key', { subdivide: { maxFile: 3 } }, /unknown key "maxFile" \(did you mean "maxFiles"\?\) in subdivide$/],
    ['a wrong type, naming the key path', { lanes: { payments: { paths: 'src/payments' } } }, /^waves: config waves\.config\.json: lanes\.payments\.paths: .*array/],
    ['an out-of-range threshold', { hubThreshold: 2 }, /hubThreshold: .*1/],
    ['an unknown hub rule', { hubs: 'always' }, /hubs: .*"off".*"fan-in".*"transitive"/],
    ['a serial glob whose braces expand to 2^34 alternatives (red team 5, F1)', { serial: [`${'{a,aa}'.repeat(34)}b`] }, /^waves: config waves\.config\.json: serial\[0\]: its braces expand to more than 64 alternatives$/],
    ['a lane glob of globstars in braces likewise', { lanes: { x: { paths: [`${'{**,x}/'.repeat(12)}c/**`] } } }, /^waves: config waves\.config\.json: lanes\.x\.paths\[0\]: its braces expand to more than 64 alternatives$/],
    ['more than 1,000 priority labels (red team L2: each label of each issue was compared with each of them)', { priorityLabels: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`p-${i}`, i % 4])) }, /^waves: config waves\.config\.json: priorityLabels: at most 1,000 labels$/],
    ['a top past 10,000 issues (red team L5)', { defaults: { top: 10_001 } }, /^waves: config waves\.config\.json: defaults\.top: .*10000/],
    ['a map key __proto__, which would vanish (red team L9)', JSON.parse('{"agents":{"__proto__":{"command":["sh","-c","id"]}}}'), /^waves: config waves\.config\.json: agents: the key "__proto__" is not allowed/],
    ['a routing that can reach a manual-only tier', { routing: { tiers: { default: { model: 'cheap' }, review: { model: 'expensive', manualOnly: true } }, categories: { hard: 'review' } } }, /routing\.categories\.hard: routes to the manual-only tier "review"/],
  ];
  for (const [name, config, message] of bad) {
    it(`rejects ${name}, with exit code 2`, async () => {
      const r = await setup(config);
      const result = await waves(['plan', '--from-issues', 'issues.json'], r.root);
      expect(result.exitCode).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(message);
    });
  }

  it('plans at once with serial and lane globs of the shapes picomatch backtracked on for hours (red team F1)', async () => {
    const stars = `${'a'.repeat(60)}b`;
    const backslash = `${'\\xa'.repeat(14)}b`;
    const deep = `${'a/'.repeat(60)}b.ts`;
    repo = await TempRepo.create({
      [`${stars}/x.ts`]: 'export const x = 1;\n',
      [`${backslash}/y.ts`]: 'export const y = 1;\n',
      [deep]: 'export const b = 1;\n',
      'docs/guide.md': '# guide\n',
      'issues.json': JSON.stringify([
        { number: 1, title: 'Stars', body: `Edit \`${stars}/x.ts\`.`, labels: [], state: 'OPEN', createdAt: '2026-01-01T00:00:00Z' },
        { number: 2, title: 'Lane', body: 'Work in the lane.', labels: [{ name: 'lane:l' }], state: 'OPEN', createdAt: '2026-01-02T00:00:00Z' },
        { number: 3, title: 'Deep', body: `Edit \`${deep}\`.`, labels: [], state: 'OPEN', createdAt: '2026-01-03T00:00:00Z' },
        { number: 4, title: 'Docs', body: 'Edit `docs/guide.md`.', labels: [], state: 'OPEN', createdAt: '2026-01-04T00:00:00Z' },
      ]),
      'waves.config.json': JSON.stringify({
        // Sixteen stars in a segment; three globstars between wildcard segments; an escaped backslash before each star.
        serial: [`${'*a'.repeat(16)}b/**`, '**/*a*/**/*a*/**/*a*/b.ts'],
        lanes: { l: { paths: [`${'\\\\*a'.repeat(14)}b/**`] } },
        defaults: { maxWaves: 5 },
      }),
    });
    const result = await waves(['plan', '--json', '--from-issues', 'issues.json'], repo.root);
    expect(result.exitCode, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout);
    const kinds = Object.fromEntries(plan.waves.flatMap((w: { kind: string; issues: { number: number; paths: string[] }[] }) => w.issues.map((i) => [i.number, [w.kind, i.paths]])));
    expect(kinds).toEqual({
      1: ['serial_singleton', [`${stars}/x.ts`]],
      2: ['parallel', [`${backslash}/y.ts`]],
      3: ['serial_singleton', [deep]],
      4: ['parallel', ['docs/guide.md']],
    });
  });

  it('rejects a file that is not JSON, and a missing --config file', async () => {
    const r = await setup({});
    await writeFile(path.join(r.root, 'waves.config.json'), '{ nope');
    const broken = await waves(['plan', '--from-issues', 'issues.json'], r.root);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toMatch(/^waves: config waves\.config\.json: not valid JSON/);
    const missing = await waves(['plan', '--from-issues', 'issues.json', '--config', 'nope.json'], r.root);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toBe('waves: config nope.json: cannot read it (no such file)');
  });
});

describe('paths in the repository\'s own config', () => {
  it('must stay inside the root, lexically and through symlinks, unless the config or the file is named on the command line', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'waves-outside-'));
    try {
      await writeFile(path.join(outside, 'secret.md'), 'SECRET {number}');
      await writeFile(path.join(outside, 'issues.json'), JSON.stringify(ISSUES));
      const r = await setup({});
      await symlink(path.join(outside, 'secret.md'), path.join(r.root, 'prompt-link.md'));
      await symlink(outside, path.join(r.root, 'out'));
      await symlink(path.join(outside, 'not-yet.jsonl'), path.join(r.root, 'dangling.jsonl'));
      const refused: [unknown, string[]][] = [
        [{ prompt: { file: path.join(outside, 'secret.md') } }, ['dispatch', '--dry-run', '--from-issues', 'issues.json']],
        [{ prompt: { file: '../secret.md' } }, ['dispatch', '--dry-run', '--from-issues', 'issues.json']],
        [{ prompt: { file: 'prompt-link.md' } }, ['dispatch', '--dry-run', '--from-issues', 'issues.json']],
        [{ leases: { journal: path.join(outside, 'journal.jsonl') } }, ['lease', 'list']],
        [{ leases: { journal: 'out/journal.jsonl' } }, ['lease', 'acquire', 'src', '--holder', 'x']],
        [{ leases: { journal: 'dangling.jsonl' } }, ['plan', '--from-issues', 'issues.json']],
        [{ defaults: { fromIssues: path.join(outside, 'issues.json') } }, ['plan']],
        [{ defaults: { fromIssues: 'out/issues.json' } }, ['plan']],
      ];
      for (const [config, args] of refused) {
        await writeFile(path.join(r.root, 'waves.config.json'), JSON.stringify(config));
        const result = await waves(args, r.root);
        const what = `${JSON.stringify(config)} ${args.join(' ')}`;
        expect(result.exitCode, what).toBe(2);
        expect(result.stderr.trim().split('\n'), what).toEqual([expect.stringMatching(/^waves: config waves\.config\.json: \S+ ".*" (leads outside|is a symbolic link)/)]);
        expect(result.stdout, what).not.toContain('SECRET');
      }
      expect(existsSync(path.join(outside, 'journal.jsonl'))).toBe(false);
      expect(existsSync(path.join(outside, 'not-yet.jsonl'))).toBe(false);
      // Named by the user: the same config with --config, a backlog with --from-issues.
      await writeFile(path.join(r.root, 'waves.config.json'), JSON.stringify({ prompt: { file: path.join(outside, 'secret.md') } }));
      const own = await waves(['dispatch', '--dry-run', '--from-issues', 'issues.json', '--config', 'waves.config.json'], r.root);
      expect(own.exitCode, own.stderr).toBe(0);
      expect(own.stdout).toContain('SECRET');
      await writeFile(path.join(r.root, 'waves.config.json'), '{}');
      expect((await waves(['plan', '--from-issues', path.join(outside, 'issues.json')], r.root)).exitCode).toBe(0);
      // Inside the root, a file of the repository is fine.
      await mkdir(path.join(r.root, 'docs'), { recursive: true });
      await writeFile(path.join(r.root, 'docs/prompt.md'), 'OWN PROMPT {number}');
      await writeFile(path.join(r.root, 'waves.config.json'), JSON.stringify({ prompt: { file: 'docs/prompt.md' }, leases: { journal: '.waves/other.jsonl' } }));
      const inside = await waves(['dispatch', '--dry-run', '--from-issues', 'issues.json'], r.root);
      expect(inside.exitCode, inside.stderr).toBe(0);
      expect(inside.stdout).toContain('OWN PROMPT');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe("the lease journal and git's files in the repository's own config", () => {
  it('keeps the journal under .waves/, untracked and outside .git, and prompt.file and defaults.fromIssues outside .git: one line, exit 2, nothing written', async () => {
    const r = await setup({});
    await r.write({ '.waves/tracked.jsonl': '' });
    await symlink('../.git/config', path.join(r.root, '.waves/config-link.jsonl'));
    const gitConfig = await readFile(path.join(r.root, '.git/config'), 'utf8');
    const types = await readFile(path.join(r.root, 'src/core/types.ts'), 'utf8');
    const refused: [unknown, string[], RegExp][] = [
      [{ leases: { journal: '.git/config' } }, ['plan', '--from-issues', 'issues.json'], /^waves: config waves\.config\.json: leases\.journal "\.git\/config" is inside \.git/],
      [{ leases: { journal: '.git/config' } }, ['lease', 'acquire', 'src', '--holder', 'x'], /leases\.journal "\.git\/config" is inside \.git/],
      [{ leases: { journal: '.git/config' } }, ['status'], /leases\.journal "\.git\/config" is inside \.git/],
      [{ leases: { journal: '.git/config' } }, ['stop', '--all'], /leases\.journal "\.git\/config" is inside \.git/],
      [{ leases: { journal: '.waves/../.git/index' } }, ['lease', 'list'], /is inside \.git/],
      [{ leases: { journal: '.waves/.git/x.jsonl' } }, ['lease', 'list'], /is inside \.git/],
      [{ leases: { journal: '.waves/config-link.jsonl' } }, ['lease', 'acquire', 'src', '--holder', 'x'], /leases\.journal "\.waves\/config-link\.jsonl" is inside \.git/],
      [{ leases: { journal: 'src/core/types.ts' } }, ['lease', 'acquire', 'src', '--holder', 'x'], /leases\.journal "src\/core\/types\.ts" is not under \.waves\//],
      [{ leases: { journal: 'journal.jsonl' } }, ['lease', 'list'], /is not under \.waves\//],
      [{ prompt: { file: '.git/config' } }, ['dispatch', '--dry-run', '--from-issues', 'issues.json'], /^waves: config waves\.config\.json: prompt\.file "\.git\/config" is inside \.git/],
      [{ prompt: { file: '.waves/config-link.jsonl' } }, ['dispatch', '--dry-run', '--from-issues', 'issues.json'], /prompt\.file "\.waves\/config-link\.jsonl" is inside \.git/],
      [{ defaults: { fromIssues: '.git/HEAD' } }, ['plan'], /^waves: config waves\.config\.json: defaults\.fromIssues "\.git\/HEAD" is inside \.git/],
    ];
    for (const [config, args, message] of refused) {
      await writeFile(path.join(r.root, 'waves.config.json'), JSON.stringify(config));
      const result = await waves(args, r.root);
      const what = `${JSON.stringify(config)} ${args.join(' ')}`;
      expect(result.exitCode, what).toBe(2);
      expect(result.stderr.trim().split('\n'), what).toEqual([expect.stringMatching(message)]);
      expect(result.stdout, what).not.toMatch(/\[core\]|repositoryformatversion/);
    }
    // A journal git tracks: nothing under .waves/ may be tracked at all, whatever it is used for.
    await r.git('add', '-f', '.waves/tracked.jsonl');
    await r.git('-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid', 'commit', '-q', '-m', 'track a journal');
    await writeFile(path.join(r.root, 'waves.config.json'), JSON.stringify({ leases: { journal: '.waves/tracked.jsonl' } }));
    const tracked = await waves(['lease', 'acquire', 'src', '--holder', 'x'], r.root);
    expect(tracked.exitCode).toBe(2);
    expect(tracked.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^waves: \.waves\/tracked\.jsonl: tracked by git under \.waves\//)]);
    expect(await readFile(path.join(r.root, '.waves/tracked.jsonl'), 'utf8')).toBe('');
    await r.git('rm', '-q', '--cached', '.waves/tracked.jsonl');
    await r.git('-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid', 'commit', '-q', '-m', 'untrack it');
    expect(await readFile(path.join(r.root, '.git/config'), 'utf8')).toBe(gitConfig);
    expect(await readFile(path.join(r.root, 'src/core/types.ts'), 'utf8')).toBe(types);
    expect(await readFile(path.join(r.root, '.waves/tracked.jsonl'), 'utf8')).toBe('');
    expect((await r.git('status', '--porcelain')).exitCode).toBe(0);
    // A config of one's own names what it likes; a repository's may use any untracked file under .waves/.
    await writeFile(path.join(r.root, 'waves.config.json'), JSON.stringify({ leases: { journal: '.waves/mine/leases.jsonl' } }));
    const ok = await waves(['lease', 'acquire', 'src', '--holder', 'x'], r.root);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(await readFile(path.join(r.root, '.waves/mine/leases.jsonl'), 'utf8')).toContain('"acquire"');
    await writeFile(path.join(r.root, 'own.json'), JSON.stringify({ leases: { journal: 'journal.jsonl' } }));
    expect((await waves(['lease', 'list', '--config', 'own.json'], r.root)).exitCode).toBe(0);
  });
});

describe('waves schema and waves init', () => {
  it('prints the JSON Schema of the plan and of the config', async () => {
    const plan = JSON.parse((await waves(['schema', 'plan'])).stdout);
    expect(plan.properties.schemaVersion).toEqual({ type: 'number', const: 1 });
    const config = JSON.parse((await waves(['schema', 'config'])).stdout);
    expect(Object.keys(config.properties)).toEqual(
      expect.arrayContaining(['lanes', 'serial', 'hubs', 'hubThreshold', 'subdivide', 'requireAcceptanceCriteria', 'priorityLabels', 'defaults', 'agents', 'routing', 'prompt', 'verify', 'leases']),
    );
    expect(config.additionalProperties).toBe(false);
    const run = JSON.parse((await waves(['schema', 'run'])).stdout);
    expect(run.required).toEqual(expect.arrayContaining(['id', 'issue', 'status', 'argv', 'leaseIds']));
    expect(Object.keys(run.properties.witness.properties)).toEqual(expect.arrayContaining(['changed', 'outOfFence', 'verify', 'commit', 'accuracy']));
    expect((await waves(['schema', 'nope'])).exitCode).toBe(2);
  });

  it('writes a starting config that names its schema, validates, and is not overwritten', async () => {
    repo = await TempRepo.create({ 'a.ts': '' });
    const first = await waves(['init', '--root', repo.root]);
    expect(first.exitCode).toBe(0);
    const config = JSON.parse(await readFile(path.join(repo.root, 'waves.config.json'), 'utf8'));
    expect(config.$schema).toBe('./waves.config.schema.json');
    // Hubs are opt-in: the starting config says so, and sets no threshold that would turn them on.
    expect(config.hubs).toBe('off');
    expect(config.hubThreshold).toBeUndefined();
    const schema = JSON.parse(await readFile(path.join(repo.root, 'waves.config.schema.json'), 'utf8'));
    expect(schema.properties.lanes).toBeDefined();
    const again = await waves(['init', '--root', repo.root]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect((await waves(['init', '--root', repo.root, '--force'])).exitCode).toBe(0);
    // The starting config plans without complaint.
    await writeFile(path.join(repo.root, 'issues.json'), '[]');
    expect((await waves(['plan', '--from-issues', 'issues.json'], repo.root)).exitCode).toBe(0);
    // No test script: no verify to guess.
    expect(config.verify).toBeUndefined();
    // A test script and a pnpm lockfile: verify runs it with pnpm.
    await writeFile(path.join(repo.root, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: 'vitest run' } }));
    await writeFile(path.join(repo.root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
    expect((await waves(['init', '--root', repo.root, '--force'])).exitCode).toBe(0);
    const withTests = JSON.parse(await readFile(path.join(repo.root, 'waves.config.json'), 'utf8'));
    expect(withTests.verify).toEqual([['pnpm', 'test']]);
    expect(withTests.verifyTimeout).toBe('10m');
  });

  it('reads package.json as the graph does: a FIFO, a link to /dev/zero or out of the repository gives no verify, and one line', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'waves-outside-'));
    try {
      await writeFile(path.join(outside, 'package.json'), JSON.stringify({ name: 'theirs', scripts: { test: 'rm -rf ~' } }));
      for (const [kind, make, reason] of [
        ['outside', (file: string) => symlink(path.join(outside, 'package.json'), file), 'a symbolic link leading outside the repository'],
        ['zero', (file: string) => symlink('/dev/zero', file), 'a symbolic link leading outside the repository'],
        ['fifo', (file: string) => execa('mkfifo', [file]), 'not a regular file (a FIFO, socket or device)'],
      ] as const) {
        repo = await TempRepo.create({ 'a.ts': '', 'pnpm-lock.yaml': '' });
        await make(path.join(repo.root, 'package.json'));
        const result = await waves(['init', '--root', repo.root]);
        expect(result.exitCode, `${kind}: ${result.stderr}`).toBe(0);
        expect(result.stderr.trim(), kind).toBe(`waves: skipped package.json: ${reason} (no verify suggested)`);
        expect(JSON.parse(await readFile(path.join(repo.root, 'waves.config.json'), 'utf8')).verify, kind).toBeUndefined();
        await repo.dispose();
        repo = undefined;
      }
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('never writes through a symbolic link, and keeps an existing schema file without --force', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'waves-outside-'));
    try {
      await writeFile(path.join(outside, 'mine.json'), 'MINE');
      repo = await TempRepo.create({ 'a.ts': '' });
      for (const name of ['waves.config.json', 'waves.config.schema.json']) {
        await symlink(path.join(outside, 'mine.json'), path.join(repo.root, name));
        for (const force of [[], ['--force']]) {
          const result = await waves(['init', '--root', repo.root, ...force]);
          expect(result.exitCode, `${name} ${force.join(' ')}`).toBe(2);
          expect(result.stderr.trim(), name).toMatch(new RegExp(`^waves: ${name.replace(/\./g, '\\.')} at .* is a symbolic link; waves init never writes through one`));
        }
        expect(await readFile(path.join(outside, 'mine.json'), 'utf8')).toBe('MINE');
        await rm(path.join(repo.root, name));
      }
      await writeFile(path.join(repo.root, 'waves.config.schema.json'), '{"mine":true}');
      const kept = await waves(['init', '--root', repo.root]);
      expect(kept.exitCode).toBe(2);
      expect(kept.stderr.trim()).toMatch(/^waves: waves\.config\.schema\.json already exists at .*; pass --force to overwrite it$/);
      expect(await readFile(path.join(repo.root, 'waves.config.schema.json'), 'utf8')).toBe('{"mine":true}');
      expect(existsSync(path.join(repo.root, 'waves.config.json'))).toBe(false);
      expect((await waves(['init', '--root', repo.root, '--force'])).exitCode).toBe(0);
      expect(JSON.parse(await readFile(path.join(repo.root, 'waves.config.schema.json'), 'utf8')).properties.lanes).toBeDefined();
      expect((await waves(['init', '--help'])).stdout).toContain('--force');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
