import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PLANNER = path.join(ROOT, 'packages/planner');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** pnpm as this test run was started with (`pnpm test` sets npm_execpath), else from PATH. */
function pnpm(args: string[], cwd: string) {
  const execPath = process.env.npm_execpath;
  const [file, prefix] = execPath && /pnpm/.test(execPath) ? ['node', [execPath]] : ['pnpm', []];
  return execa(file, [...prefix, ...args], { cwd, stdin: 'ignore', env: { CI: 'true' } });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'waves-consumer-'));
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the planner package, packed and installed outside the workspace', () => {
  it('installs from its tarball, runs in plain Node and type-checks a TypeScript consumer', async () => {
    await pnpm(['pack', '--pack-destination', dir], PLANNER);
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { '@waves/planner': `file:./${tarball}` } }),
    );
    await pnpm(['install', '--prefer-offline', '--ignore-workspace'], dir);

    const consumer = `
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRepo, planWaves, PlanSchema, verifyPlan } from '@waves/planner';

const root = mkdtempSync(path.join(tmpdir(), 'waves-repo-'));
mkdirSync(path.join(root, 'src'));
writeFileSync(path.join(root, 'src/a.ts'), "import { b } from './b.js'; export const a = b;");
writeFileSync(path.join(root, 'src/b.ts'), 'export const b = 1;');
const repo = await loadRepo(root);
const issues = [
  { number: 1, title: 'a', body: 'Edit \`src/a.ts\`', labels: [], state: 'open', createdAt: null, url: null, sortOrder: null },
  { number: 2, title: 'b', body: 'Edit \`src/b.ts\`', labels: [], state: 'open', createdAt: null, url: null, sortOrder: null },
];
const input = { issues, repo, now: '2026-11-29T00:00:00Z' };
const plan = planWaves(input);
if (verifyPlan(plan, input).length > 0) throw new Error('invalid plan');
rmSync(root, { recursive: true, force: true });
console.log(JSON.stringify(PlanSchema.parse(plan).waves.map((w) => w.issues.map((i) => i.number))));
`;
    await writeFile(path.join(dir, 'consumer.mjs'), consumer);
    const run = await execa('node', ['consumer.mjs'], { cwd: dir, stdin: 'ignore' });
    expect(run.stdout.trim()).toBe('[[1],[2]]');

    await writeFile(
      path.join(dir, 'consumer.ts'),
      `import { planWaves, type Plan, type PlanInput } from '@waves/planner';
export function waveCount(input: PlanInput): number {
  const plan: Plan = planWaves(input);
  return plan.waves.length;
}
`,
    );
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [] }, files: ['consumer.ts'] }),
    );
    const check = await execa('node', [TSC, '-p', '.'], {
      cwd: dir,
      stdin: 'ignore',
      reject: false,
    });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.exitCode).toBe(0);
  }, 300_000);
});
