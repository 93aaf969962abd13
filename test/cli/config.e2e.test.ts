import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
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

describe('waves schema and waves init', () => {
  it('prints the JSON Schema of the plan and of the config', async () => {
    const plan = JSON.parse((await waves(['schema', 'plan'])).stdout);
    expect(plan.properties.schemaVersion).toEqual({ type: 'number', const: 1 });
    const config = JSON.parse((await waves(['schema', 'config'])).stdout);
    expect(Object.keys(config.properties)).toEqual(
      expect.arrayContaining(['lanes', 'serial', 'hubThreshold', 'subdivide', 'requireAcceptanceCriteria', 'priorityLabels', 'defaults', 'agents', 'routing', 'prompt', 'verify', 'leases']),
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
});
