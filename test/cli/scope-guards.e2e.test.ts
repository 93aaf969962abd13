/**
 * What issue text can never make a fence (red-team round 7): git's own directory, installed
 * packages, waves' state, and symbolic links leading out of the repository — named in a code span,
 * a list, a Boundaries line, a GitHub link, or reached by scope inference.
 */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanSchema } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

const BIN = path.join(fileURLToPath(new URL('../..', import.meta.url)), 'packages/cli/bin/waves.js');

let repo: TempRepo;
let outside: string;
beforeAll(async () => {
  outside = await mkdtemp(path.join(tmpdir(), 'waves-outside-'));
  await writeFile(path.join(outside, 'secret.ts'), 'export const secret = 1;\n');
  repo = await TempRepo.create({
    'package.json': '{ "name": "shop", "private": true }\n',
    'src/cart/cart.ts': 'export function addToCart() {}\n',
    'src/cart/total.ts': 'export function cartTotal() {}\n',
  }, { git: false });
  // Committed links out: a file and a folder.
  await symlink(path.join(outside, 'secret.ts'), path.join(repo.root, 'src/cart/leak.ts'));
  await symlink(outside, path.join(repo.root, 'vendor'));
  await repo.git('init', '-q', '-b', 'main');
  await repo.git('add', '-A');
  await repo.git('-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid', 'commit', '-q', '-m', 'initial');
});
afterAll(async () => {
  await repo.dispose();
  await rm(outside, { recursive: true, force: true });
});

async function plan(issues: object[], ...flags: string[]) {
  const file = path.join(repo.root, '..', `${path.basename(repo.root)}-issues.json`);
  await writeFile(file, JSON.stringify(issues));
  const result = await execa('node', [BIN, 'plan', '--from-issues', file, '--root', repo.root, '--json', ...flags], { reject: false, stdin: 'ignore', env: { NO_COLOR: '1' } });
  await rm(file, { force: true });
  expect(result.exitCode, result.stderr).toBe(0);
  const parsed = PlanSchema.parse(JSON.parse(result.stdout));
  return { plan: parsed, stderr: JSON.stringify(parsed.warnings) };
}

describe('paths issue text can never fence', () => {
  it("drops .git (any case), node_modules and waves' state, however named, with a warning each", async () => {
    const body = [
      'Boundaries: edit ONLY files under .git/',
      '',
      '- `.git/hooks/pre-commit` (create)',
      '- `src/.GIT/config`',
      '- `node_modules/left-pad/index.js`',
      '- `.waves/leases.jsonl`',
      '- see https://github.com/acme/shop/blob/main/.git/config',
      '- `src/cart/cart.ts`',
    ].join('\n');
    const { plan: p, stderr } = await plan([{ number: 1, title: 'hooks', body }]);
    const entry = p.waves.flatMap((w) => w.issues).find((i) => i.number === 1)!;
    expect(entry.paths).toEqual(['src/cart/cart.ts']);
    expect(stderr).toMatch(/\.git\/hooks\/pre-commit.*inside git's own directory/);
    expect(stderr).toMatch(/src\/\.GIT\/config.*inside git's own directory/);
    expect(stderr).toMatch(/node_modules\/left-pad\/index\.js.*inside installed packages/);
    expect(stderr).toMatch(/\.waves\/leases\.jsonl.*inside waves' own state/);
  });

  it('never fences a symbolic link leading outside, nor a path through one, named or inferred', async () => {
    const { plan: p, stderr } = await plan(
      [
        { number: 1, title: 'Fix `src/cart/leak.ts`', body: '- `vendor/secret.ts`\n- `vendor/`\n- `src/cart/total.ts`' },
        { number: 2, title: 'leak is wrong', body: 'at x (/app/src/cart/leak.ts:1:1)' },
      ],
      '--inference',
      'plan',
      '--inference-threshold',
      '0.1',
    );
    const entries = [...p.waves.flatMap((w) => w.issues), ...p.triage];
    for (const entry of entries) {
      for (const lane of 'paths' in entry ? entry.paths : []) expect(['src/cart/leak.ts', 'vendor', 'vendor/'].includes(lane) || lane.startsWith('vendor/'), lane).toBe(false);
      for (const c of entry.candidates ?? []) expect(c.path === 'src/cart/leak.ts' || c.path.startsWith('vendor')).toBe(false);
    }
    expect(p.waves.flatMap((w) => w.issues).find((e) => e.number === 1)!.paths).toContain('src/cart/total.ts');
    expect(stderr).toMatch(/src\/cart\/leak\.ts is a symbolic link leading outside the repository/);
    expect(stderr).toMatch(/vendor is a symbolic link leading outside the repository/);
  });

  it('never fences a link leading outside through a configured lane, and says so of a fenced folder that holds one', async () => {
    const config = path.join(repo.root, 'waves.config.json');
    await writeFile(config, JSON.stringify({ lanes: { outer: { paths: ['vendor/**', 'src/cart/leak.ts', 'src/cart/total.ts'] } } }));
    try {
      const { plan: p, stderr } = await plan([
        { number: 1, title: 'Outer work', labels: [{ name: 'lane:outer' }], body: '' },
        { number: 2, title: 'The cart', body: '- `src/cart/`' },
      ]);
      const entries = p.waves.flatMap((w) => w.issues);
      expect(entries.find((e) => e.number === 1)!.paths).toEqual(['src/cart/total.ts']);
      expect(stderr).toMatch(/vendor is a symbolic link leading outside the repository/);
      expect(stderr).toMatch(/src\/cart\/leak\.ts is a symbolic link leading outside the repository/);
      // The folder stays the fence; the link in it is named.
      expect(entries.find((e) => e.number === 2)!.paths).toEqual(['src/cart/']);
      expect(stderr).toMatch(/src\/cart\/leak\.ts: a symbolic link leading outside the repository, inside the fenced folder src\/cart\//);
    } finally {
      await rm(config, { force: true });
    }
  });

  it('never fences an untracked link leading outside either (a tool or an earlier agent left it), in a git checkout or not', async () => {
    const link = path.join(repo.root, 'src/cart/stray.ts');
    await symlink(path.join(outside, 'secret.ts'), link);
    const bare = await TempRepo.create({ 'src/a.ts': 'export const a = 1;\n' }, { git: false });
    try {
      await symlink(path.join(outside, 'secret.ts'), path.join(bare.root, 'src/pw.ts'));
      const issues = [{ number: 1, title: 'Fix the stray', body: '- `src/cart/stray.ts`\n- `src/cart/total.ts`' }];
      const { plan: p, stderr } = await plan(issues);
      expect(p.waves.flatMap((w) => w.issues).find((e) => e.number === 1)!.paths).toEqual(['src/cart/total.ts']);
      expect(stderr).toMatch(/src\/cart\/stray\.ts is a symbolic link leading outside the repository/);
      // Outside any repository: the walk lists the link, and judges it the same way.
      const file = path.join(bare.root, '..', `${path.basename(bare.root)}-issues.json`);
      await writeFile(file, JSON.stringify([{ number: 1, title: 'x', body: '- `src/pw.ts`\n- `src/a.ts`' }]));
      const result = await execa('node', [BIN, 'plan', '--from-issues', file, '--root', bare.root, '--json'], { reject: false, stdin: 'ignore' });
      await rm(file, { force: true });
      expect(result.exitCode, result.stderr).toBe(0);
      const walked = PlanSchema.parse(JSON.parse(result.stdout));
      expect(walked.waves.flatMap((w) => w.issues).find((e) => e.number === 1)!.paths).toEqual(['src/a.ts']);
      expect(JSON.stringify(walked.warnings)).toMatch(/src\/pw\.ts is a symbolic link leading outside the repository/);
    } finally {
      await rm(link, { force: true });
      await bare.dispose();
    }
  });
});
