import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IssueExplanationSchema, PlanSchema, SYMBOLS_CACHE_VERSION } from '@waves/planner';
import { inferRepo } from '../helpers/infer-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');

function waves(args: string[]) {
  return execa('node', [BIN, ...args], { cwd: ROOT, reject: false, stdin: 'ignore', env: { NO_COLOR: '1' } });
}

let repo: TempRepo;
let side: string;
let issues: string;

beforeAll(async () => {
  repo = await inferRepo();
  side = await mkdtemp(path.join(tmpdir(), 'waves-infer-'));
  issues = path.join(side, 'issues.json');
  await writeFile(
    issues,
    JSON.stringify([
      { number: 1, title: 'Dark mode ignores the options', body: 'Stack:\n    at applyTheme (/home/u/shop/packages/web/src/styles/theme.ts:4:9)\n', state: 'OPEN', labels: [] },
      { number: 2, title: 'Make it nicer', body: 'Everything feels slow.', state: 'OPEN', labels: [] },
      { number: 3, title: 'Refunds: round half up', body: 'Edit `packages/api/src/routes/refunds.ts`; the log says "Payment provider timed out after retries".', state: 'OPEN', labels: [] },
    ]),
  );
});
afterAll(async () => {
  await repo.dispose();
  await rm(side, { recursive: true, force: true });
});

describe('scope inference, end to end', () => {
  it('suggest (the default): an issue naming no files stays in triage, with its candidates and a reason naming the best', async () => {
    const result = await waves(['plan', '--from-issues', issues, '--root', repo.root, '--json']);
    expect(result.exitCode).toBe(0);
    const plan = PlanSchema.parse(JSON.parse(result.stdout));
    expect(plan.options.inference).toBe('suggest');
    const first = plan.triage.find((t) => t.number === 1)!;
    expect(first.candidates?.[0]?.path).toBe('packages/web/src/styles/theme.ts');
    expect(first.candidates?.[0]?.evidence[0]).toMatchObject({ kind: 'frame', where: { field: 'body', line: 2 }, matched: 'packages/web/src/styles/theme.ts' });
    expect(first.inferred).toBe(false);
    expect(first.reason).toMatch(/^no path, lane or label names what it touches; likely packages\/web\/src\/styles\/theme\.ts \(\d+%: stack frame/);
    // An issue naming a path is planned on it, and its message's file is shown as a candidate (not fenced).
    const third = plan.waves.flatMap((w) => w.issues).find((i) => i.number === 3)!;
    expect(third.paths).toEqual(['packages/api/src/routes/refunds.ts']);
    expect(third.candidates?.map((c) => c.path)).toContain('packages/payments/src/stripe.ts');
    expect(third.inferred).toBe(false);
  });

  it('plan: an issue whose best candidate passes the threshold is dispatched with an inferred fence', async () => {
    const result = await waves(['plan', '--from-issues', issues, '--root', repo.root, '--json', '--inference', 'plan', '--inference-threshold', '0.6']);
    expect(result.exitCode).toBe(0);
    const plan = PlanSchema.parse(JSON.parse(result.stdout));
    const planned = plan.waves.flatMap((w) => w.issues);
    const first = planned.find((i) => i.number === 1)!;
    expect(first.inferred).toBe(true);
    expect(first.paths).toContain('packages/web/src/styles/theme.ts');
    expect(first.candidates?.[0]?.path).toBe('packages/web/src/styles/theme.ts');
    // The strong message candidate of an issue that names a path joins its fence.
    const third = planned.find((i) => i.number === 3)!;
    expect(third.paths).toEqual(['packages/api/src/routes/refunds.ts', 'packages/payments/src/stripe.ts']);
    expect(third.inferred).toBe(false);
    // Vague prose stays in triage.
    expect(plan.triage.map((t) => t.number)).toContain(2);
  });

  it('off: no candidates anywhere, issues naming no files in triage as before', async () => {
    const result = await waves(['plan', '--from-issues', issues, '--root', repo.root, '--json', '--inference', 'off']);
    const plan = PlanSchema.parse(JSON.parse(result.stdout));
    expect(plan.triage.find((t) => t.number === 1)).toEqual({ number: 1, title: 'Dark mode ignores the options', url: null, reason: 'no path, lane or label names what it touches' });
    expect(JSON.stringify(plan)).not.toContain('candidates');
  });

  it('says where in the body a word matched, and calls an unsure best guess "perhaps"', async () => {
    const vague = path.join(side, 'vague.json');
    await writeFile(vague, JSON.stringify([{ number: 9, title: 'Looks wrong', body: 'The palette is off.', state: 'OPEN', labels: [] }]));
    const text = await waves(['explain', '9', '--from-issues', vague, '--root', repo.root]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/← words: palette \(body\) → /);
    expect(text.stdout).not.toContain('line ?');
    const plan = PlanSchema.parse(JSON.parse((await waves(['plan', '--from-issues', vague, '--root', repo.root, '--json'])).stdout));
    const entry = plan.triage.find((t) => t.number === 9)!;
    expect(entry.candidates?.[0]?.path).toBe('packages/web/src/styles/palette.ts');
    const best = entry.candidates![0]!.confidence;
    expect(entry.reason).toMatch(best >= 0.3 ? /; likely packages\/web\/src\/styles\/palette\.ts \(/ : /; perhaps packages\/web\/src\/styles\/palette\.ts \(/);
  });

  it('explain lists the candidates with their evidence, as text and JSON', async () => {
    const text = await waves(['explain', '1', '--from-issues', issues, '--root', repo.root]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('Likely files (inferred):');
    expect(text.stdout).toMatch(/packages\/web\/src\/styles\/theme\.ts {2}\d+%\n {4}← frame: at applyTheme|packages\/web\/src\/styles\/theme\.ts {2}\d+%\n {4}← frame: \/home/);
    const json = await waves(['explain', '1', '--from-issues', issues, '--root', repo.root, '--json', '--inference', 'plan']);
    const explanation = IssueExplanationSchema.parse(JSON.parse(json.stdout));
    expect(explanation.inferred).toBe(true);
    expect(explanation.candidates?.[0]?.evidence.map((e) => e.kind)).toContain('frame');
    expect(explanation.scope[0]?.evidence[0]?.via).toBe('inferred-frame');
  });

  it('the worker prompt says the fence was inferred, from what, and what to do beyond it', async () => {
    const result = await waves(['dispatch', '--dry-run', '--json', '--from-issues', issues, '--root', repo.root, '--inference', 'plan', '--agent', 'claude']);
    expect(result.exitCode).toBe(0);
    const text = result.stdout;
    expect(text).toContain('waves inferred this fence from its text');
    expect(text).toContain('packages/web/src/styles/theme.ts (');
    expect(text).toMatch(/ask for them before you\\nedit them \([^)]*fence check PATH…\)/);
  });

  it('rejects a bad mode or threshold with one line and exit code 2', async () => {
    const mode = await waves(['plan', '--from-issues', issues, '--root', repo.root, '--inference', 'guess']);
    expect(mode.exitCode).toBe(2);
    expect(mode.stderr.trim()).toBe('waves: --inference: expected one of off, suggest, plan, got "guess"');
    const threshold = await waves(['backtest', '--root', repo.root, '--inference-threshold', '1.5']);
    expect(threshold.exitCode).toBe(2);
    expect(threshold.stderr).toContain('--inference-threshold: expected a number from 0 to 1, got "1.5"');
  });

  it('a warm plan of issues that name their files never reads the symbols cache; one that needs inference rebuilds it', async () => {
    const named = path.join(side, 'named.json');
    await writeFile(
      named,
      JSON.stringify([
        { number: 7, title: 'Refunds: round half up', body: 'Edit `packages/api/src/routes/refunds.ts` to round half up.', state: 'OPEN', labels: [] },
        { number: 8, title: 'Checkout: retry once', body: 'In `packages/api/src/routes/checkout.ts`.', state: 'OPEN', labels: [] },
      ]),
    );
    const symbols = path.join(repo.root, '.waves/cache', `symbols-v${SYMBOLS_CACHE_VERSION}.json`);
    const first = await waves(['plan', '--from-issues', named, '--root', repo.root, '--json']);
    expect(first.exitCode).toBe(0);
    await writeFile(symbols, 'corrupt');
    const warm = await waves(['plan', '--from-issues', named, '--root', repo.root, '--json']);
    expect(warm.exitCode).toBe(0);
    const planOf = (stdout: string) => ({ ...PlanSchema.parse(JSON.parse(stdout)), generatedAt: null });
    expect(planOf(warm.stdout)).toEqual(planOf(first.stdout));
    expect(planOf(warm.stdout).waves.flatMap((w) => w.issues.map((i) => i.number)).sort()).toEqual([7, 8]);
    expect(await readFile(symbols, 'utf8')).toBe('corrupt');
    // An issue naming no files needs the names and messages: they are scanned again, the same as before.
    const inferred = await waves(['plan', '--from-issues', issues, '--root', repo.root, '--json']);
    const plan = PlanSchema.parse(JSON.parse(inferred.stdout));
    expect(plan.triage.find((t) => t.number === 1)?.candidates?.[0]?.path).toBe('packages/web/src/styles/theme.ts');
    expect(plan.waves.flatMap((w) => w.issues).find((i) => i.number === 3)?.candidates?.map((c) => c.path)).toContain('packages/payments/src/stripe.ts');
    const stripe = (await repo.git('rev-parse', 'HEAD:packages/payments/src/stripe.ts')).stdout.trim();
    expect(JSON.parse(await readFile(symbols, 'utf8')).entries[stripe][1]).toContain('Payment provider timed out after retries');
  });

  it('waves schema plan shows candidates and inferred', async () => {
    const result = await waves(['schema', 'plan']);
    expect(result.stdout).toContain('"candidates"');
    expect(result.stdout).toContain('"inferred"');
    expect(result.stdout).toContain('"neighbour"');
  });
});
