/**
 * `waves harvest` against an agent that sets git's index flags (red team 3, finding 1):
 * `git update-index --assume-unchanged` / `--skip-worktree` make git's diff — and the person's
 * `git status` — look away from a file. The agent flags the root package.json, points its
 * `scripts.test` at a marker and edits a file of its fence; the config verifies with `npm test`.
 */
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { byIssue, hostileSetup, type Hostile } from '../helpers/hostile-setup.js';

let t: Hostile | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const script = (flag: string) => `
if [ "$1" = 102 ]; then
  git update-index --${flag} package.json
  node -e 'const f = "package.json"; const p = JSON.parse(require("fs").readFileSync(f, "utf8")); p.scripts = { ...p.scripts, test: "touch {scratch}/npm-test-ran" }; require("fs").writeFileSync(f, JSON.stringify(p, null, 2))'
  echo "// x" >> packages/web/src/index.ts
fi
`;

describe('waves harvest against index flags set by an agent', () => {
  for (const [mode, flag] of [['--worktree', 'assume-unchanged'], ['shared tree', 'skip-worktree']] as const) {
    it(`needs a person naming the file and the flag, sees the hidden change, and neither verifies nor commits (${mode}, ${flag})`, async () => {
      t = await hostileSetup({ script: script(flag), verify: [['npm', 'test']] });
      expect((await t.dispatch(...(mode === '--worktree' ? ['--worktree'] : []))).exitCode).toBe(0);
      const head = (await t.git(t.root, 'rev-parse', 'HEAD')).trim();
      const { report, stderr } = await t.harvest('--commit', '--run', t.runId(102));
      expect(existsSync(path.join(t.scratch, 'npm-test-ran')), stderr).toBe(false);
      const w = byIssue(report, 102).witness!;
      expect(w.status).toBe('needs_person');
      expect(w.reasons.join(' ')).toMatch(new RegExp(`package\\.json \\(${flag}\\)`));
      // The diff does not trust the flag: the change out of the fence is seen.
      expect(w.outOfFence.map((c) => c.path)).toContain('package.json');
      expect(w.verify).toEqual([]);
      expect(w.commit).toBeNull();
      expect((await t.git(t.root, 'rev-parse', mode === '--worktree' ? 'waves/issue-102' : 'HEAD')).trim()).toBe(head);
    }, 120_000);
  }

  it('leaves flags that were there before the run alone (a sparse checkout), and a flagged file the person changed before is not the agent\'s', async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then echo "// x" >> packages/web/src/index.ts; fi' });
    await t.git(t.root, 'update-index', '--skip-worktree', 'README.md');
    appendFileSync(path.join(t.root, 'README.md'), 'a note of the person\n');
    const { exitCode } = await t.dispatch();
    expect(exitCode).toBe(0);
    const w = byIssue((await t.harvest('--run', t.runId(102))).report, 102).witness!;
    expect(w.reasons.join(' ')).not.toMatch(/index flag/);
    expect(w.status).toBe('clean');
  }, 120_000);
});
