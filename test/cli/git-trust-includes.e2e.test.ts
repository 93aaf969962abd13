/**
 * Config an agent brings in through an include whose condition is not true yet — `onbranch:` a
 * branch waves will make, `gitdir:` a worktree it will add — never runs its programs from waves:
 * the include itself is a change to trust (red team 3, finding 3). And a promisor remote an agent
 * declares never makes git run its upload-pack when waves makes a worktree (finding 2).
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostileSetup, type Hostile } from '../helpers/hostile-setup.js';

let t: Hostile | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const ran = (marker: string) => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

/** A file of config that makes every file of the tree go through a filter noting each run in the marker. */
function evilInclude(scratch: string): { include: string; marker: string } {
  const marker = path.join(scratch, 'evil-ran');
  const program = path.join(scratch, 'evil.sh');
  writeFileSync(program, `#!/bin/sh\necho "$PWD" >> ${marker}\ncat\n`);
  chmodSync(program, 0o755);
  const attributes = path.join(scratch, 'evil.attr');
  writeFileSync(attributes, '* filter=ev\n');
  const include = path.join(scratch, 'evil.inc');
  writeFileSync(include, `[filter "ev"]\n\tsmudge = ${program}\n\tclean = ${program}\n[core]\n\tattributesFile = ${attributes}\n`);
  return { include, marker };
}

describe('an include whose condition is not true yet', () => {
  it('onbranch: the next wave\'s branch, planted by a worktree agent: harvest and the next dispatch stop, nothing runs', async () => {
    t = await hostileSetup({ script: '' });
    const { include, marker } = evilInclude(t.scratch);
    writeFileSync(
      path.join(t.scratch, 'agent.sh'),
      `if [ "$1" = 102 ]; then
  git config --file "$(git rev-parse --git-common-dir)/config" 'includeIf.onbranch:waves/issue-103.path' ${include}
fi
echo "// $1" >> README.md
`,
    );
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const refusal = /^waves: git config names a program you have not trusted: includeif\.onbranch:waves\/issue-103\.path=".*evil\.inc" in \.git\/config; .*waves trust$/;
    const harvest = await t.harvest();
    expect(harvest.exitCode).toBe(2);
    expect(harvest.stderr.trim()).toMatch(refusal);
    const next = await t.dispatch('--worktree', '--wave', '2');
    expect(next.exitCode).toBe(2);
    expect(next.stderr.trim()).toMatch(refusal);
    expect(existsSync(t.worktree(103))).toBe(false);
    // waves trust lists it although its condition is false in every work tree that exists.
    expect((await t.waves('trust')).stdout).toMatch(/includeif\.onbranch:waves\/issue-103\.path = ".*evil\.inc" {2}\(new; in \.git\/config\)/);
    expect(ran(marker)).toBe('');
  }, 180_000);

  it('gitdir: any worktree, planted by a shared-tree agent: plan, backtest and dispatch --worktree stop, nothing runs', async () => {
    t = await hostileSetup({ script: '' });
    const { include, marker } = evilInclude(t.scratch);
    writeFileSync(
      path.join(t.scratch, 'agent.sh'),
      `if [ "$1" = 102 ]; then
  git config 'includeIf.gitdir:**/.git/worktrees/**.path' ${include}
fi
`,
    );
    expect((await t.dispatch('--concurrency', '1')).exitCode).toBe(0);
    const refusal = /^waves: git config names a program you have not trusted: includeif\.gitdir:\*\*\/\.git\/worktrees\/\*\*\.path=".*evil\.inc" in \.git\/config; /;
    const plan = await t.waves('plan', '--from-issues', 'backlog.json');
    expect(plan.exitCode).toBe(2);
    expect(plan.stderr.trim()).toMatch(refusal);
    const backtest = await t.waves('backtest', '--last', '3');
    expect(backtest.exitCode).toBe(2);
    expect(backtest.stderr.trim()).toMatch(refusal);
    const next = await t.dispatch('--worktree', '--wave', '2');
    expect(next.exitCode).toBe(2);
    expect(next.stderr.trim()).toMatch(refusal);
    expect(ran(marker)).toBe('');
    rmSync(marker, { force: true });
  }, 180_000);
});

/** Declares a promisor remote whose upload-pack notes each run in the marker, and deletes the loose blob of a file of the base. */
const promisorAct = (common: string, marker: string, program: string) => `
git config --file "${common}/config" core.repositoryformatversion 1
git config --file "${common}/config" extensions.partialClone evil
git config --file "${common}/config" remote.evil.url /nonexistent/nowhere
git config --file "${common}/config" remote.evil.promisor true
git config --file "${common}/config" remote.evil.uploadpack ${program}
B=$(git rev-parse HEAD:packages/payments/src/refunds.ts); rm -f "${common}/objects/$(echo $B | cut -c1-2)/$(echo $B | cut -c3-)"
`;

describe('a promisor remote', () => {
  it('planted by an agent: the worktrees made after it are refused, its upload-pack never runs', async () => {
    t = await hostileSetup({ script: '' });
    const marker = path.join(t.scratch, 'uploadpack-ran');
    const program = path.join(t.scratch, 'uploadpack.sh');
    writeFileSync(program, `#!/bin/sh\necho ran >> ${marker}\nexit 1\n`);
    chmodSync(program, 0o755);
    writeFileSync(path.join(t.scratch, 'agent.sh'), `if [ "$1" = 102 ]; then\n${promisorAct('$(git rev-parse --git-common-dir)', marker, program)}\nfi\necho "// $1" >> README.md\n`);
    const result = await t.dispatch('--worktree', '--concurrency', '1');
    expect(`${result.stdout}\n${result.stderr}`).toMatch(/#105.*git config names a program you have not trusted: (extensions\.partialclone|remote\.evil\.)/);
    expect((await t.dispatch('--worktree', '--wave', '2')).exitCode).toBe(2);
    expect(ran(marker)).toBe('');
  }, 180_000);

  it("trusted by the person (a partial clone): a missing object is never fetched, worktree add says why", async () => {
    t = await hostileSetup({ script: '' });
    const marker = path.join(t.scratch, 'uploadpack-ran');
    const program = path.join(t.scratch, 'uploadpack.sh');
    writeFileSync(program, `#!/bin/sh\necho ran >> ${marker}\nexit 1\n`);
    chmodSync(program, 0o755);
    const { execa } = await import('execa');
    await execa('sh', ['-c', promisorAct('.git', marker, program)], { cwd: t.root });
    writeFileSync(path.join(t.scratch, 'agent.sh'), `echo "// $1" >> README.md\n`);
    expect((await t.waves('trust', '--yes')).exitCode).toBe(0);
    const result = await t.dispatch('--worktree');
    expect(`${result.stdout}\n${result.stderr}`).toMatch(/#101.*git worktree add failed: .*(transport|lazy fetching|unable to read)/);
    expect(ran(marker)).toBe('');
  }, 180_000);
});

describe('a FIFO where git opens a file', () => {
  it('at the root (.gitignore, .gitattributes) or included by the config: plan says so in one line, exit 2, no hang', async () => {
    t = await hostileSetup({ script: '' });
    Object.assign(t.env, { WAVES_GIT_TIMEOUT: '30' });
    const { execa } = await import('execa');
    expect((await t.waves('plan', '--from-issues', 'backlog.json')).exitCode).toBe(0);
    for (const name of ['.gitignore', '.gitattributes']) {
      const fifo = path.join(t.root, name);
      rmSync(fifo, { force: true });
      await execa('mkfifo', [fifo]);
      const plan = await t.waves('plan', '--from-issues', 'backlog.json');
      expect(plan.exitCode).toBe(2);
      expect(plan.stderr.trim()).toMatch(new RegExp(`^waves: \\S+/\\${name} is a FIFO, not a file: git would block reading it .*\\n?$`));
      expect(plan.stderr.trim().split('\n')).toHaveLength(1);
      rmSync(fifo);
      await t.git(t.root, 'checkout', '--', '.');
    }
    const fifo = path.join(t.scratch, 'fifo.inc');
    await execa('mkfifo', [fifo]);
    writeFileSync(path.join(t.root, '.git', 'config'), `${readFileSync(path.join(t.root, '.git', 'config'), 'utf8')}[include]\n\tpath = ${fifo}\n`);
    for (const args of [['plan', '--from-issues', 'backlog.json'], ['status'], ['trust'], ['harvest'], ['lease', 'list']]) {
      const result = await t.waves(...args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim()).toMatch(/^waves: \S+fifo\.inc is a FIFO, not a file: git would block reading it \(included by \S+\/\.git\/config\); remove the include/);
    }
    // Written as git reads it too: the key on its section's line, a value continued on the next
    // line (in quotes or not), a comment after it (red team F7: each waited out git's deadline).
    const configFile = path.join(t.root, '.git', 'config');
    const config = readFileSync(configFile, 'utf8').replace(`[include]\n\tpath = ${fifo}\n`, '');
    const cut = fifo.length - 4;
    for (const shape of [`[include] path = ${fifo}\n`, `[include]\n\tpath = "${fifo.slice(0, cut)}\\\n${fifo.slice(cut)}"\n`, `[include]\n\tpath = ${fifo.slice(0, cut)}\\\n${fifo.slice(cut)} ; a comment\n`]) {
      writeFileSync(configFile, config + shape);
      expect((await execa('git', ['config', '--file', configFile, '--get-all', 'include.path'])).stdout, shape).toBe(fifo);
      const result = await t.waves('plan', '--from-issues', 'backlog.json');
      expect(result.exitCode, shape).toBe(2);
      expect(result.stderr.trim(), shape).toMatch(/^waves: \S+fifo\.inc is a FIFO, not a file: git would block reading it \(included by \S+\/\.git\/config\); remove the include/);
    }
  }, 180_000);

  it('anywhere else: git is stopped at its deadline (WAVES_GIT_TIMEOUT) and one line names the command, the folder and the likely cause', async () => {
    t = await hostileSetup({ script: '' });
    const { execa } = await import('execa');
    await execa('mkfifo', [path.join(t.root, 'packages', 'web', '.gitignore')]);
    const { waves } = await import('../helpers/example-repo.js');
    const plan = await waves(['plan', '--from-issues', 'backlog.json'], t.root, { ...t.env, WAVES_GIT_TIMEOUT: '2' });
    expect(plan.exitCode).toBe(2);
    expect(plan.stderr.trim()).toMatch(/^waves: git ls-files in \S+ did not finish in 2 s and was stopped: a file git reads there \(a \.gitignore, .*\) may be a FIFO or a device \(WAVES_GIT_TIMEOUT sets the limit, in seconds\)$/);
    const bad = await waves(['plan', '--from-issues', 'backlog.json'], t.root, { ...t.env, WAVES_GIT_TIMEOUT: 'soon' });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^waves: WAVES_GIT_TIMEOUT="soon" is not a number of seconds/);
  }, 120_000);

  it("in an agent's fence: harvest says the run needs a person, at once, for a worktree and for the shared tree", async () => {
    for (const mode of [['--worktree'], []]) {
      t = await hostileSetup({ script: '' });
      Object.assign(t.env, { WAVES_GIT_TIMEOUT: '60' });
      writeFileSync(path.join(t.scratch, 'agent.sh'), `if [ "$1" = 102 ]; then rm -f packages/web/.gitignore; mkfifo packages/web/.gitignore; fi\necho "// $1" >> packages/web/src/components/CartView.tsx\n`);
      expect((await t.dispatch(...mode, '--concurrency', '1')).exitCode).toBe(0);
      const { exitCode, report, stderr } = await t.harvest();
      expect(exitCode, stderr).not.toBe(2);
      const run = report.runs.find((r) => r.issue.number === 102)!;
      expect(run.witness!.status, mode.join(' ')).toBe('needs_person');
      expect(run.witness!.reasons.join(' ')).toMatch(/packages\/web\/\.gitignore is a FIFO, not a file: git would block reading it/);
      // In the shared tree every run's listing would read it: each says so.
      if (mode.length === 0) for (const r of report.runs) expect(r.witness!.status).toBe('needs_person');
      await t.dispose();
      t = null;
    }
  }, 240_000);
});

describe('the folder of the trusted git config', () => {
  it('a file there: plan and trust --yes say so in one line, exit 2; a link there is never followed', async () => {
    t = await hostileSetup({ script: '' });
    const folder = path.join(t.scratch, 'state', 'git-trust');
    mkdirSync(path.dirname(folder), { recursive: true });
    writeFileSync(folder, 'not a folder\n');
    for (const args of [['plan', '--from-issues', 'backlog.json'], ['trust', '--yes']]) {
      const result = await t.waves(...args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim()).toMatch(/^waves: the folder of the trusted git config \S+git-trust is a file: .*move it away$/);
    }
    rmSync(folder);
    const elsewhere = path.join(t.scratch, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, folder);
    for (const args of [['plan', '--from-issues', 'backlog.json'], ['trust', '--yes']]) {
      const result = await t.waves(...args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim()).toMatch(/^waves: the folder of the trusted git config \S+git-trust is a symbolic link \(never followed\)/);
    }
    expect(readdirSync(elsewhere)).toEqual([]);
    rmSync(folder);
    expect((await t.waves('plan', '--from-issues', 'backlog.json')).exitCode).toBe(0);
  }, 120_000);
});

describe('a trusted filter whose program lives in the tree', () => {
  it('waves trust warns that trust covers the setting, not the work tree file it runs', async () => {
    t = await hostileSetup({ script: '' });
    mkdirSync(path.join(t.root, 'tools'), { recursive: true });
    writeFileSync(path.join(t.root, 'tools', 'clean.sh'), 'cat\n');
    await t.git(t.root, 'config', 'filter.fmt.clean', 'sh tools/clean.sh');
    await t.git(t.root, 'config', 'filter.lfs.clean', 'git-lfs clean -- %f');
    const shown = await t.waves('trust');
    expect(shown.exitCode).toBe(0);
    expect(shown.stderr).toMatch(/^waves trust: warning: filter\.fmt\.clean = "sh tools\/clean\.sh" names "tools\/clean\.sh", a path relative to the work tree git runs in: an agent that rewrites that file/m);
    expect(shown.stderr).not.toMatch(/filter\.lfs/);
    expect((await t.waves('trust', '--yes')).exitCode).toBe(0);
    // Once trusted, it still warns.
    expect((await t.waves('trust')).stderr).toMatch(/warning: filter\.fmt\.clean/);
  }, 120_000);
});
