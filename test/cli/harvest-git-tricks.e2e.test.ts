/**
 * `waves harvest` against agents that use git itself to get past the witness (red team, round 1):
 * a nested repository whose own config runs a filter (finding 3), branches moved or switched
 * under the person (finding 8), and a config rewritten to change what verification runs
 * (finding 9). Each runs the red team's repro with the scripted agent (a shell script).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { byIssue, hostileSetup, type Hostile } from '../helpers/hostile-setup.js';

let t: Hostile | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const ran = (marker: string) => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');
const GIT_AS_AGENT = 'git -c user.name=agent -c user.email=agent@example.invalid';

describe('waves harvest against agents that use git', () => {
  it('never enters a nested repository (its filter never runs), and a gitlink or nested .git needs a person and is never committed', async () => {
    t = await hostileSetup({
      script: `
case "$1" in
  102)
    # The red team's repro: a nested repository whose own config has a clean filter on every
    # file, made stat-dirty, then staged as a gitlink at the top.
    mkdir -p packages/web/sub && cd packages/web/sub && git init -q .
    echo hi > a.txt && echo '* filter=evil' > .gitattributes
    git config filter.evil.clean "sh -c 'echo ran >> {scratch}/filter-ran; cat'"
    ${GIT_AS_AGENT} add -A && ${GIT_AS_AGENT} commit -qm nested
    touch -d 2001-01-01 a.txt && echo more >> a.txt
    cd ../../..
    git add packages/web/sub
    echo "// x" >> packages/web/src/index.ts ;;
  105)
    # A .git made inside a folder of the repository, beside the files of the fence.
    git init -q packages/core/src
    echo "// y" >> packages/core/src/cart.ts ;;
  101)
    # A nested repository left untracked, outside the fence.
    git init -q vendor/tool && echo x > vendor/tool/x.txt
    echo "// z" >> packages/api/src/routes/checkout.ts ;;
esac
`,
    });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    // The agent's own git ran the filter in its nested repository: only what runs from now on counts.
    rmSync(path.join(t.scratch, 'filter-ran'), { force: true });
    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    const { exitCode, report, stderr } = await t.harvest('--commit', '--revert-out-of-fence');
    expect(exitCode, stderr).toBe(4);
    expect(ran(path.join(t.scratch, 'filter-ran'))).toBe('');
    const cases: [number, RegExp][] = [
      [102, /packages\/web\/sub .*gitlink/],
      [105, /packages\/core\/src .*nested git repository/],
      [101, /vendor\/tool .*nested git repository/],
    ];
    for (const [n, why] of cases) {
      const w = byIssue(report, n).witness!;
      expect(w.status, `#${n}`).toBe('needs_person');
      expect(w.reasons.join(' '), `#${n}`).toMatch(why);
      expect(w.commit, `#${n}`).toBeNull();
      expect((await t.git(t.root, 'rev-parse', `waves/issue-${n}`)).trim(), `#${n}`).toBe(base);
    }
  }, 120_000);

  it('needs a person when a run moved a branch of the person (and says from where to where), and commits nothing', async () => {
    t = await hostileSetup({
      script: `
if [ "$1" = 102 ]; then
  # The red team's repro: a commit out of the fence, put on main from the worktree, then hidden.
  echo '{"evil":true}' > package.json
  ${GIT_AS_AGENT} commit -qam innocent
  git update-ref refs/heads/main HEAD
  git reset -q --hard HEAD~1
  echo "// ok" >> packages/web/src/index.ts
fi
`,
    });
    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const moved = (await t.git(t.root, 'rev-parse', 'main')).trim();
    expect(moved).not.toBe(base);
    const { exitCode, report, stderr } = await t.harvest('--commit', '--run', t.runId(102));
    expect(exitCode, stderr).toBe(4);
    const w = byIssue(report, 102).witness!;
    expect(w.status).toBe('needs_person');
    expect(w.reasons.join(' ')).toContain(`refs/heads/main moved ${base.slice(0, 12)} → ${moved.slice(0, 12)}`);
    expect(w.commit).toBeNull();
    expect((await t.git(t.root, 'rev-parse', 'waves/issue-102')).trim()).toBe(base);
    // Nothing is put back by waves: a person decides.
    expect((await t.git(t.root, 'rev-parse', 'main')).trim()).toBe(moved);
  }, 120_000);

  it('without worktrees, never commits on a branch an agent switched the work tree to', async () => {
    t = await hostileSetup({
      script: `
case "$1" in
  102) git checkout -q -b agent-branch && echo "// x" >> packages/web/src/index.ts ;;
  105) sleep 1 && echo "// y" >> packages/core/src/cart.ts ;;
esac
`,
    });
    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    expect((await t.dispatch()).exitCode).toBe(0);
    const { exitCode, report, stderr } = await t.harvest('--commit');
    expect(exitCode, stderr).toBe(4);
    for (const n of [101, 102, 105]) {
      const w = byIssue(report, n).witness!;
      expect(w.status, `#${n}`).toBe('needs_person');
      expect(w.commit, `#${n}`).toBeNull();
    }
    const reasons = byIssue(report, 102).witness!.reasons.join(' ');
    expect(reasons).toContain('the work tree\'s HEAD is on refs/heads/agent-branch, not refs/heads/main');
    expect(reasons).toContain(`refs/heads/agent-branch created at ${base.slice(0, 12)}`);
    expect((await t.git(t.root, 'rev-parse', 'agent-branch')).trim()).toBe(base);
    expect((await t.git(t.root, 'rev-parse', 'main')).trim()).toBe(base);
  }, 120_000);

  it('runs the verification in force at dispatch, never one an agent wrote into the config since', async () => {
    t = await hostileSetup({
      script: `
if [ "$1" = 102 ]; then
  node -e 'const f = "waves.config.json"; const c = JSON.parse(require("fs").readFileSync(f, "utf8")); c.verify = [["sh", "-c", "touch {scratch}/verify-ran"]]; require("fs").writeFileSync(f, JSON.stringify(c))'
  echo "// x" >> packages/web/src/index.ts
fi
`,
    });
    expect((await t.dispatch()).exitCode).toBe(0);
    const { report, stderr } = await t.harvest('--run', t.runId(102));
    expect(existsSync(path.join(t.scratch, 'verify-ran')), stderr).toBe(false);
    const w = byIssue(report, 102).witness!;
    // The config's verify is named as different; while the change out of the fence remains, no
    // verification runs at all (red team 2, finding 7).
    expect(w.notes.join(' ')).toMatch(/verify of waves\.config\.json differs from the one in force at dispatch/);
    expect(w.verify).toEqual([]);
    expect(w.reasons.join(' ')).toMatch(/verification not run: out-of-fence changes remain/);
    // The config itself is a root file out of the fence.
    expect(w.outOfFence.map((c) => c.path)).toContain('waves.config.json');
    expect(w.status).toBe('needs_person');
    // Undone by the person, the sealed verification runs (the fake one, with the issue's paths).
    await t.git(t.root, 'checkout', '--', 'waves.config.json');
    const again = byIssue((await t.harvest('--run', t.runId(102))).report, 102).witness!;
    expect(again.verify.map((v) => v.argv.slice(1, 2).map((a) => path.basename(a)))).toEqual([['fake-verify.mjs']]);
    expect(again.verify[0]!.status).toBe('passed');
    expect(existsSync(path.join(t.scratch, 'verify-ran'))).toBe(false);
  }, 120_000);
});
