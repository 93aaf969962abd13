/**
 * Red team, round 2 — what an agent (or a clone) can do to waves' branches, worktrees and own
 * folders, and to what harvest verifies and commits: another run's harvested branch rewritten
 * (finding 4), a committed `.waves/worktrees` link (5), a worktree re-pointed at a foreign
 * repository (6), verification delegated to a script the run changed (7), a commit left by a
 * killed harvest (13), a bad `--base` (14), and a file changed while verification ran (15).
 * Each on a real temporary repository with a scripted agent doing what the case says.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { byIssue, GIT_AS_AGENT, hostileSetup, plumbedCommit, type Hostile } from '../helpers/hostile-setup.js';
import { sealFileOf } from '@waves/dispatch';

let t: Hostile | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

/** What a harvest writes in waves' state before it moves the branch: the commit it is about to put there. */
const noteIntent = async (h: Hostile, n: number, sha: string) => {
  const before = process.env.WAVES_STATE_DIR;
  process.env.WAVES_STATE_DIR = h.env.WAVES_STATE_DIR;
  try {
    writeFileSync(`${await sealFileOf(h.recordFile(n))}.harvest.commit`, `${sha}\n`);
  } finally {
    if (before === undefined) delete process.env.WAVES_STATE_DIR;
    else process.env.WAVES_STATE_DIR = before;
  }
};

const commitAll = async (h: Hostile, message: string) => {
  await h.git(h.root, 'add', '-A');
  await h.git(h.root, '-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', message);
};

describe('red team 2: branches, worktrees and what harvest verifies and commits', () => {
  it("needs a person when a later run rewrites an already-harvested run's branch: the run that moved it, the re-harvest and status", async () => {
    t = await hostileSetup({
      script: `
case "$1" in
  101) echo "// fix" >> packages/api/src/routes/checkout.ts ;;
  102) echo "// fix" >> packages/web/src/index.ts ;;
  105) echo "// fix" >> packages/core/src/cart.ts ;;
  103)
    # The red team's acts/wbranch: a commit with a root change on top of #101's harvested branch.
    tip=$(git rev-parse refs/heads/waves/issue-101)
    ${plumbedCommit('evil', '$tip', 'package.json', '{"scripts":{"postinstall":"touch /tmp/pwned"}}', 'fix(api): Checkout charges twice (#101)')}
    git update-ref refs/heads/waves/issue-101 "$evil"
    echo "// refund" >> packages/payments/src/stripe.ts ;;
  *) echo "// x" >> scripts/seed.ts ;;
esac
`,
    });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const first = await t.harvest('--commit');
    expect(first.exitCode, first.stderr).toBe(0);
    const sealed = byIssue(first.report, 101).witness!.commit!.sha;

    expect((await t.dispatch('--worktree', '--wave', '2')).exitCode).toBe(0);
    const evil = (await t.git(t.root, 'rev-parse', 'waves/issue-101')).trim();
    expect(evil).not.toBe(sealed);
    const second = await t.harvest('--commit');
    expect(second.exitCode).toBe(4);
    const w103 = byIssue(second.report, 103).witness!;
    expect(w103.status).toBe('needs_person');
    expect(w103.reasons.join(' ')).toMatch(new RegExp(`refs/heads/waves/issue-101 moved ${sealed.slice(0, 12)} → ${evil.slice(0, 12)}`));
    expect(w103.commit).toBeNull();

    // Re-harvesting wave 1 no longer says "witnessed clean" for #101: its branch is not what was sealed.
    const again = await t.harvest('--wave', '1');
    expect(again.exitCode).toBe(4);
    const w101 = byIssue(again.report, 101).witness!;
    expect(w101.status).toBe('needs_person');
    expect(w101.reasons.join(' ')).toMatch(new RegExp(`its branch waves/issue-101 is at ${evil.slice(0, 10)}, not at ${sealed.slice(0, 10)}`));
    expect(byIssue(again.report, 102).witness!.status).toBe('clean');

    // Status says so too, instead of "committed".
    const status = await t.waves('status');
    expect(status.stderr).toMatch(new RegExp(`#101\\) needs a person: its branch waves/issue-101 is at ${evil.slice(0, 10)}`));
    expect(status.stdout).not.toContain(`committed ${sealed.slice(0, 10)}`);

    // A deleted branch likewise.
    await t.git(t.root, 'worktree', 'remove', '--force', t.worktree(102));
    await t.git(t.root, 'branch', '-D', 'waves/issue-102');
    const third = await t.harvest('--wave', '1');
    expect(byIssue(third.report, 102).witness!.reasons.join(' ')).toMatch(/its branch waves\/issue-102 is gone/);
  }, 180_000);

  it('refuses to dispatch from a base an agent of a run not yet harvested moved, and says so; harvested, the person decides (red team E15)', async () => {
    t = await hostileSetup({
      script: `
case "$1" in
  101)
    echo "// fix" >> packages/api/src/routes/checkout.ts
    # A commit of main plus a CI workflow of its own, put on main with plumbing.
    main=$(git rev-parse refs/heads/main)
    ${plumbedCommit('evil', '$main', '.github/workflows/evil.yml', 'on: push', 'chore: ci')}
    git update-ref refs/heads/main "$evil" ;;
  102) echo "// fix" >> packages/web/src/index.ts ;;
  *) echo "// x" >> scripts/seed.ts ;;
esac
`,
    });
    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    // One run at a time: #102 starts after #101's agent moved main, and still forks from the base
    // the dispatch resolved before any agent ran (red team H1).
    expect((await t.dispatch('--worktree', '--concurrency', '1')).exitCode).toBe(0);
    const evil = (await t.git(t.root, 'rev-parse', 'main')).trim();
    expect(evil).not.toBe(base);
    expect((await t.git(t.root, 'rev-parse', 'waves/issue-102')).trim()).toBe(base);
    // A graft that makes the agent's commit a parent of the old main hides nothing from waves' git (red team H2).
    writeFileSync(path.join(t.root, '.git', 'info', 'grafts'), `${base} ${evil}\n`);
    const records = () => readdirSync(path.join(t!.root, '.dispatch-runs')).filter((n) => n.endsWith('.json')).sort();
    const before = records();
    const refused = await t.dispatch('--worktree', '--wave', '2');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^waves: dispatch refused: HEAD is at ${evil.slice(0, 12)}, which holds 1 commit\\(s\\) \\(${evil.slice(0, 12)}\\) no branch or tag held when run\\(s\\) #101\\b.* started, and that waves did not make .*Harvest those runs first \\(waves harvest\\)`)),
    ]);
    expect(records()).toEqual(before);
    // However the base is named or reached (red team G3): HEAD detached at the commit, on a new
    // branch, a remote-tracking ref, a ref's short name, the sha itself.
    const head = await t.git(t.root, 'symbolic-ref', 'HEAD');
    await t.git(t.root, 'update-ref', 'refs/remotes/origin/main', evil);
    await t.git(t.root, 'update-ref', 'refs/heads/release', evil);
    for (const args of [['--base', 'origin/main'], ['--base', 'heads/release'], ['--base', evil]]) {
      const named = await t.dispatch('--worktree', '--wave', '2', ...args);
      expect(named.exitCode, args.join(' ')).toBe(2);
      expect(named.stderr, args.join(' ')).toMatch(/dispatch refused: --base \S+ is at [0-9a-f]{12}, which holds 1 commit\(s\)/);
    }
    await t.git(t.root, 'update-ref', 'refs/heads/main', base);
    for (const move of [['checkout', '-q', '--detach', evil], ['checkout', '-q', 'release']]) {
      await t.git(t.root, ...move);
      const moved = await t.dispatch('--worktree', '--wave', '2');
      expect(moved.exitCode, move.join(' ')).toBe(2);
      expect(moved.stderr).toMatch(/dispatch refused: HEAD is at [0-9a-f]{12}, which holds 1 commit\(s\)/);
    }
    await t.git(t.root, 'checkout', '-q', head.trim().replace('refs/heads/', ''));
    await t.git(t.root, 'update-ref', 'refs/heads/main', evil);
    expect(records()).toEqual(before);
    // The harvest names the move; once the person has seen it (here: put main back), wave 2 goes.
    const harvest = await t.harvest();
    expect(byIssue(harvest.report, 101).witness!.reasons.join(' ')).toMatch(new RegExp(`refs/heads/main moved ${base.slice(0, 12)} → ${evil.slice(0, 12)}`));
    await t.git(t.root, 'update-ref', 'refs/heads/main', base);
    expect((await t.dispatch('--worktree', '--wave', '2')).exitCode).toBe(0);
  }, 120_000);

  it('refuses a committed .waves/worktrees link and anything tracked under .waves/ or .dispatch-runs/, exit 2, one line', async () => {
    t = await hostileSetup({ script: 'echo "// x" >> README.md' });
    const outside = path.join(t.scratch, 'outside');
    mkdirSync(outside);
    mkdirSync(path.join(t.root, '.waves'));
    symlinkSync(outside, path.join(t.root, '.waves', 'worktrees'));
    await t.git(t.root, 'add', '-f', '.waves');
    await commitAll(t, 'a link');
    const readme = readFileSync(path.join(t.root, 'README.md'), 'utf8');
    const dispatched = await t.dispatch('--worktree');
    expect(dispatched.exitCode).toBe(2);
    expect(dispatched.stderr.trim()).toMatch(/^waves: \.waves\/worktrees: a symbolic link in the repository \(to .*outside\)/);
    expect(dispatched.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(path.join(t.root, 'README.md'), 'utf8')).toBe(readme);
    expect(existsSync(path.join(outside, 'issue-101'))).toBe(false);

    // The link gone, a tracked file under .dispatch-runs/ is refused the same way (by plan too).
    await t.git(t.root, 'rm', '-q', '--cached', '.waves/worktrees');
    await t.git(t.root, 'commit', '-qm', 'no link');
    rmSync(path.join(t.root, '.waves'), { recursive: true });
    mkdirSync(path.join(t.root, '.dispatch-runs'));
    writeFileSync(path.join(t.root, '.dispatch-runs', 'planted.json'), '{}\n');
    await t.git(t.root, 'add', '-f', '.dispatch-runs/planted.json');
    await commitAll(t, 'planted');
    const plan = await t.waves('plan', '--from-issues', 'backlog.json');
    expect(plan.exitCode).toBe(2);
    expect(plan.stderr.trim()).toMatch(/^waves: \.dispatch-runs\/planted\.json: tracked by git under \.dispatch-runs\/.*git rm --cached it$/);
  }, 120_000);

  it('does not continue a worktree whose .git an agent re-pointed at a foreign repository; no git runs there', async () => {
    t = await hostileSetup({
      script: `
if [ "$1" = 102 ] && [ ! -e {scratch}/second ]; then
  # The red team's acts/gitptr: a foreign repository with a filter, and the worktree's .git pointing at it.
  git init -q {scratch}/evilgit
  git -C {scratch}/evilgit config filter.evil.clean "sh -c 'echo ran >> {scratch}/filter-ran; cat'"
  git -C {scratch}/evilgit config filter.evil.smudge "sh -c 'echo ran >> {scratch}/filter-ran; cat'"
  mkdir -p {scratch}/evilgit/.git/info && echo '* filter=evil' > {scratch}/evilgit/.git/info/attributes
  echo "gitdir: {scratch}/evilgit/.git" > .git
fi
echo "// work" >> README.md
`,
    });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    writeFileSync(path.join(t.scratch, 'second'), '');
    // Not while the runs whose agents wrote in the worktrees are unharvested (red team J1).
    expect((await t.dispatch('--worktree')).stderr).toMatch(/^waves: dispatch refused: #\d+: its worktree \.waves\/worktrees\/issue-\d+ holds uncommitted changes/);
    await t.harvest();
    const again = await t.dispatch('--worktree');
    expect(again.stderr).toMatch(/#102 skipped: not continued: \.waves\/worktrees\/issue-102\/\.git points at .*evilgit\/\.git, not at a worktree of this repository/);
    expect(again.stderr).not.toMatch(/#102 continues/);
    const harvest = await t.harvest('--commit');
    expect(harvest.report.runs.filter((r) => r.issue.number === 102).every((r) => r.witness?.commit == null)).toBe(true);
    expect(existsSync(path.join(t.scratch, 'filter-ran'))).toBe(false);
  }, 120_000);

  it("needs a person when a committed run's worktree is re-pointed at a foreign repository after the harvest", async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 101 ]; then echo "// fix" >> packages/api/src/routes/checkout.ts; fi' });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const first = await t.harvest('--commit', '--run', t.runId(101));
    expect(byIssue(first.report, 101).witness!.commit).not.toBeNull();
    writeFileSync(path.join(t.worktree(101), '.git'), `gitdir: ${path.join(t.scratch, 'elsewhere', '.git')}\n`);
    const again = await t.harvest('--run', t.runId(101));
    expect(again.exitCode).toBe(4);
    expect(byIssue(again.report, 101).witness!.reasons.join(' ')).toMatch(/its worktree changed after the harvest: \.waves\/worktrees\/issue-101\/\.git points at .*elsewhere\/\.git, not at a worktree of this repository/);
    expect((await t.waves('status')).stderr).toMatch(/#101\) needs a person: its worktree changed after the harvest/);
  }, 120_000);

  it('runs no verification while out-of-fence changes remain (npm test runs package.json), and does after the revert', async () => {
    t = await hostileSetup({
      verify: [['npm', 'test', '--silent']],
      script: `
if [ "$1" = 102 ]; then
  node -e "const f='package.json';const p=JSON.parse(require('fs').readFileSync(f,'utf8'));p.scripts.test='touch {scratch}/PWNED';require('fs').writeFileSync(f,JSON.stringify(p))"
  echo "// fix" >> packages/web/src/index.ts
fi
`,
    });
    const pkg = JSON.parse(readFileSync(path.join(t.root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    pkg.scripts.test = `node -e "require('fs').appendFileSync('${path.join(t.scratch, 'verified')}', 'ok\\n')"`;
    writeFileSync(path.join(t.root, 'package.json'), JSON.stringify(pkg));
    await commitAll(t, 'test script');
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const first = await t.harvest('--commit');
    const w = byIssue(first.report, 102).witness!;
    expect(w.reasons.join(' ')).toMatch(/verification not run: out-of-fence changes remain \(revert them with --revert-out-of-fence\)/);
    expect(w.verify).toEqual([]);
    expect(w.commit).toBeNull();
    expect(existsSync(path.join(t.scratch, 'PWNED'))).toBe(false);

    const second = await t.harvest('--commit', '--revert-out-of-fence');
    const after = byIssue(second.report, 102).witness!;
    expect(after.reverted).toEqual(['package.json']);
    expect(after.verify.map((v) => v.status)).toEqual(['passed']);
    expect(after.status).toBe('clean');
    expect(readFileSync(path.join(t.scratch, 'verified'), 'utf8')).toBe('ok\n');
    expect(existsSync(path.join(t.scratch, 'PWNED'))).toBe(false);
  }, 120_000);

  it('commits only what verification checked: a file changed while it ran needs a person, nothing is committed', async () => {
    // The verification stands in for the agent's leftover process (acts/swapafter): it appends to
    // an in-fence file of the run's worktree while waves verifies (in a clean tree of its own).
    t = await hostileSetup({
      verify: [['sh', '-c', 'echo "// EVIL" >> "$(git rev-parse --git-common-dir)/../.waves/worktrees/issue-102/packages/web/src/index.ts"']],
      script: 'if [ "$1" = 102 ]; then echo "// fix" >> packages/web/src/index.ts; fi',
    });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    const { report } = await t.harvest('--commit');
    const w = byIssue(report, 102).witness!;
    expect(w.verify.map((v) => v.status)).toEqual(['passed']);
    expect(w.reasons.join(' ')).toMatch(/packages\/web\/src\/index\.ts changed after verification/);
    expect(w.commit).toBeNull();
    expect((await t.git(t.root, 'rev-parse', 'waves/issue-102')).trim()).toBe(base);
  }, 120_000);

  it("adopts a commit of the run left by a harvest killed right after making it (its Waves-Run trailer, the verified tree)", async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then echo "// fix" >> packages/web/src/index.ts; fi' });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    // What a harvest killed between its commit and its witness leaves: the commit, no witness.
    const wt = t.worktree(102);
    await t.git(wt, 'add', 'packages/web/src/index.ts');
    await t.git(wt, '-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'feat(web): Show the discount line in the cart view (#102)', '-m', `Waves-Run: ${t.runId(102)}`);
    const left = (await t.git(wt, 'rev-parse', 'HEAD')).trim();
    // The harvest noted the commit in its state before it moved the branch.
    await noteIntent(t, 102, left);
    const { report } = await t.harvest('--commit');
    const w = byIssue(report, 102).witness!;
    expect(w.status).toBe('clean');
    expect(w.commit?.sha).toBe(left);
    expect(w.notes.join(' ')).toMatch(/adopted/);
    expect((await t.git(t.root, 'rev-list', '--count', `${base}..waves/issue-102`)).trim()).toBe('1');
  }, 120_000);

  it("never adopts a commit the agent made itself with its run's trailer: only the one a harvest noted before it moved the branch (red team 4)", async () => {
    t = await hostileSetup({
      script: `if [ "$1" = 102 ]; then echo "// fix" >> packages/web/src/index.ts; git add packages/web/src/index.ts; git -c user.name='Trusted Maintainer' -c user.email=maint@example.invalid commit -q --date=2020-01-01T00:00:00Z -m 'fix(web): reviewed by security team (#102)' -m "Waves-Run: $WAVES_RUN"; fi`,
    });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const agents = (await t.git(t.worktree(102), 'rev-parse', 'HEAD')).trim();
    const { report } = await t.harvest('--commit');
    const w = byIssue(report, 102).witness!;
    expect(w.notes.join(' ')).not.toMatch(/adopted/);
    expect(w.commit).toBeNull();
    expect(w.notes.join(' ')).toMatch(/nothing left to commit: the in-fence changes are already committed on the branch/);
    // The status does not show the agent's commit as waves' own either.
    expect((await t.waves('status')).stdout).not.toContain(`committed ${agents.slice(0, 10)}`);
  }, 120_000);

  it('gives the worktree\'s index the adopted commit\'s entries: a harvest killed after moving the branch had not reached it', async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then echo "// fix" >> packages/web/src/index.ts; echo "export const n = 1;" > packages/web/src/new.ts; fi' });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    // What a harvest killed right after its update-ref leaves: the commit on the branch (made from
    // another index, as commit-tree does), the worktree's own index as it was before.
    const wt = t.worktree(102);
    const index = path.join(t.scratch, 'other-index');
    const env = { ...process.env, GIT_INDEX_FILE: index, GIT_AUTHOR_NAME: 'w', GIT_AUTHOR_EMAIL: 'w@example.invalid', GIT_COMMITTER_NAME: 'w', GIT_COMMITTER_EMAIL: 'w@example.invalid' };
    const run = (...args: string[]) => execa('git', ['-C', wt, ...args], { env }).then((r) => r.stdout.trim());
    await run('read-tree', 'HEAD');
    await run('add', 'packages/web/src/index.ts', 'packages/web/src/new.ts');
    const tree = await run('write-tree');
    const sha = await run('commit-tree', tree, '-p', 'HEAD', '-m', 'feat(web): Show the discount line in the cart view (#102)', '-m', `Waves-Run: ${t.runId(102)}`);
    await noteIntent(t, 102, sha);
    await run('update-ref', 'HEAD', sha);
    expect(await t.git(wt, 'status', '--porcelain')).not.toBe('');
    const { report } = await t.harvest('--commit');
    const w = byIssue(report, 102).witness!;
    expect(w.commit?.sha).toBe(sha);
    expect(w.notes.join(' ')).toMatch(/adopted/);
    // Nothing staged or changed against the commit: a `git commit` there would change nothing.
    expect((await t.git(wt, 'status', '--porcelain')).trim()).toBe('');
  }, 120_000);

  it('removes the import-graph cache an agent rewrote while it ran, so that the next plan is the plan of the repository again', async () => {
    // The imports emptied, and the file's time set back as if untouched.
    const poison = 'for(const f of fs.readdirSync(".waves/cache")){if(!/^graph-v[0-9]+[.]json$/.test(f))continue;const p=".waves/cache/"+f;const st=fs.statSync(p);const c=JSON.parse(fs.readFileSync(p));for(const e of Object.values(c.entries)){e.imports=[];e.targets=[]}fs.writeFileSync(p,JSON.stringify(c));fs.utimesSync(p,st.atime,st.mtime)}';
    t = await hostileSetup({ script: `if [ "$1" = 102 ]; then echo "// fix" >> packages/web/src/index.ts; ${JSON.stringify(process.execPath)} -e 'const fs=require("fs");${poison}'; fi` });
    const h = t;
    const plan = async (...flags: string[]) => ({ ...JSON.parse((await h.waves('plan', '--from-issues', 'backlog.json', '--json', ...flags)).stdout), generatedAt: null });
    const before = await plan();
    expect((await t.dispatch()).exitCode).toBe(0);
    // A plan between the run's end and its harvest: its supervisor removed the caches as the run ended.
    expect(await plan()).toEqual(before);
    // The runs of the wave overlap: whichever supervisor ends first finds the cache changed, and says so in its run's log.
    const logs = [101, 102, 105].map((n) => readFileSync(JSON.parse(readFileSync(h.recordFile(n), 'utf8')).log, 'utf8')).join('\n');
    expect(logs).toMatch(/\.waves\/cache\/ changed while the run ran \(graph-v\d+\.json.*\): no waves process writes it then, an agent can; removed/);
    await t.harvest('--run', t.runId(102));
    expect(await plan()).toEqual(await plan('--no-cache'));
  }, 120_000);

  it('adopts such a commit in a shared work tree too (no worktree): the branch moved by this run\'s own commit is no ref change', async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then echo "// fix" >> packages/web/src/index.ts; fi' });
    expect((await t.dispatch()).exitCode).toBe(0);
    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    await t.git(t.root, 'add', 'packages/web/src/index.ts');
    await t.git(t.root, '-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'feat(web): Show the discount line in the cart view (#102)', '-m', `Waves-Run: ${t.runId(102)}`);
    const left = (await t.git(t.root, 'rev-parse', 'HEAD')).trim();
    await noteIntent(t, 102, left);
    const { report } = await t.harvest('--commit', '--run', t.runId(102));
    const w = byIssue(report, 102).witness!;
    expect(w.reasons).toEqual([]);
    expect(w.commit?.sha).toBe(left);
    expect(w.notes.join(' ')).toMatch(/adopted/);
    expect((await t.git(t.root, 'rev-list', '--count', `${base}..main`)).trim()).toBe('1');
  }, 120_000);

  it("needs a person when, in a shared work tree, the agent put its own commit on the branch with its run's trailer: the trailer excuses no move (red team E07)", async () => {
    t = await hostileSetup({
      script: `if [ "$1" = 102 ]; then echo "// fix" >> packages/web/src/index.ts; git add packages/web/src/index.ts; git -c user.name='Trusted Maintainer' -c user.email=maint@example.invalid commit -q --date=2020-01-01T00:00:00Z -m 'fix(web): reviewed by security team (#102)' -m "Waves-Run: $WAVES_RUN"; fi`,
    });
    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    expect((await t.dispatch('--concurrency', '1')).exitCode).toBe(0);
    const agents = (await t.git(t.root, 'rev-parse', 'main')).trim();
    expect(agents).not.toBe(base);
    const { report } = await t.harvest('--commit', '--run', t.runId(102));
    const w = byIssue(report, 102).witness!;
    expect(w.status).toBe('needs_person');
    expect(w.reasons.join(' ')).toMatch(new RegExp(`refs/heads/main moved ${base.slice(0, 12)} → ${agents.slice(0, 12)}`));
    expect(w.commit).toBeNull();
  }, 120_000);

  it('refuses a --base that names no commit or reads as an option (exit 2, one line, nothing started), and shows git\'s fatal: line', async () => {
    t = await hostileSetup({ script: 'echo "// x" >> README.md' });
    for (const [base, why] of [
      ['nonexist', /^waves: --base: nonexist names no commit in /],
      ['--orphan', /^waves: --base: "--orphan" is not a ref \(it would reach git as an option\)$/],
    ] as const) {
      const result = await t.dispatch('--worktree', `--base=${base}`);
      expect(result.exitCode, base).toBe(2);
      expect(result.stderr.trim(), base).toMatch(why);
      expect(result.stderr.trim().split('\n'), base).toHaveLength(1);
      expect(existsSync(path.join(t.root, '.dispatch-runs')), base).toBe(false);
    }
    // A folder in the way: git's own reason, not its "Preparing worktree" progress line.
    mkdirSync(path.join(t.root, '.waves', 'worktrees', 'issue-101'), { recursive: true });
    writeFileSync(path.join(t.root, '.waves', 'worktrees', 'issue-101', 'f'), 'x');
    const blocked = await t.dispatch('--worktree');
    expect(blocked.stderr).toMatch(/#101 skipped: git worktree add failed: fatal: .*already exists/);
  }, 120_000);
});
