/**
 * A FIFO in a tsconfig `extends` chain inside the repository (red team 2, #12): `waves plan` ended
 * with `internal error: Cannot find module '@ts-morph/common'` — Node's loader, after a stat of a
 * FIFO, loaded ts-morph by its pnpm link path. Now that tsconfig is skipped with one warning naming
 * it, the rest of the graph is built, and no command hangs or fails: plan, graph, a dry run, and a
 * harvest of the shared-tree run that planted it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostileSetup, type Hostile } from '../helpers/hostile-setup.js';

let t: Hostile | undefined;

/** Without vitest's NODE_PATH (pnpm's hoisted packages), which hides the loader's fault. */
function bareNode(h: Hostile): Hostile {
  (h.env as Record<string, string>).NODE_PATH = '';
  return h;
}
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

const WARNING = /^waves: skipped packages\/web\/tsconfig\.json: its extends chain names \S*packages\/web\/fifo\.json, which is not a regular file \(a FIFO\) \(not read\)$/m;

describe('a FIFO in a tsconfig extends chain', () => {
  it('is a warning naming the tsconfig in plan, graph and a dry run, never an internal error', async () => {
    t = bareNode(await hostileSetup({}));
    execFileSync('mkfifo', [path.join(t.root, 'packages/web/fifo.json')]);
    writeFileSync(path.join(t.root, 'packages/web/tsconfig.json'), '{"extends":"./fifo.json"}');
    for (const args of [['plan', '--from-issues', 'backlog.json', '--no-cache'], ['plan', '--from-issues', 'backlog.json'], ['graph'], ['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'fake']]) {
      const result = await t.waves(...args);
      expect(result.stderr, args.join(' ')).not.toMatch(/internal error/);
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr, args.join(' ')).toMatch(WARNING);
    }
    const plan = await t.waves('plan', '--from-issues', 'backlog.json', '--json');
    expect(JSON.parse(plan.stdout).waves.length).toBeGreaterThan(0);
  }, 120_000);

  it('planted by a shared-tree agent: the harvest witnesses the runs and later plans work', async () => {
    t = bareNode(
      await hostileSetup({
        script: `
case "$1" in
  102) mkfifo packages/web/fifo.json && echo '{"extends":"./fifo.json"}' > packages/web/tsconfig.json ;;
  105) echo "// work" >> packages/core/src/cart.ts ;;
esac
`,
      }),
    );
    expect((await t.dispatch()).exitCode).toBe(0);
    const harvest = await t.harvest();
    expect(harvest.stderr).not.toMatch(/internal error/);
    expect(harvest.report.runs.map((r) => r.issue.number).sort()).toEqual([101, 102, 105]);
    const plan = await t.waves('plan', '--from-issues', 'backlog.json');
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stderr).toMatch(WARNING);
  }, 120_000);
});
