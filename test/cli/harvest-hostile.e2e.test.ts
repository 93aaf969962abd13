/**
 * `waves harvest` against hostile agents, on temporary git repositories with the fake agent: a
 * symlink that leads the revert outside the repository, a git hook or config an agent plants,
 * a run record rewritten after the run, links left in place of files, and files hidden with
 * `.git/info/exclude`. Each case broke a promise of the README before it was fixed (issue #11).
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleRepo, FAKE_AGENT_CONFIG, ROOT, waves } from '../helpers/example-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

const FAKE_VERIFY = path.join(ROOT, 'test/fixtures/agents/fake-verify.mjs');
const IDENTITY = { GIT_AUTHOR_NAME: 'Harvester', GIT_AUTHOR_EMAIL: 'h@example.invalid', GIT_COMMITTER_NAME: 'Harvester', GIT_COMMITTER_EMAIL: 'h@example.invalid' };

interface Witness {
  changed: { path: string; change: string }[];
  outOfFence: { path: string }[];
  reverted: string[];
  commit: { sha: string; paths: string[] } | null;
  status: 'clean' | 'needs_person';
  reasons: string[];
  notes: string[];
}
interface HarvestReport {
  runs: { id: string; issue: { number: number }; result: string; witness?: Witness }[];
}

let repo: TempRepo | null = null;
let scratch: string | null = null;
afterEach(async () => {
  await repo?.dispose();
  repo = null;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = null;
});

/** The example repository, a scratch folder outside it (the state directory, outside targets), and the commands. */
async function setUp(agents: Record<string, unknown>) {
  repo = await exampleRepo({ agents: FAKE_AGENT_CONFIG, verify: [[process.execPath, FAKE_VERIFY, '{paths}']] });
  scratch = mkdtempSync(path.join(tmpdir(), 'waves-hostile-'));
  const root = repo.root;
  const stateDir = path.join(scratch, 'state');
  writeFileSync(path.join(scratch, 'agents.json'), JSON.stringify(agents));
  const env = { FAKE_AGENT_SCRIPT: path.join(scratch, 'agents.json'), WAVES_STATE_DIR: stateDir, ...IDENTITY };
  const git = async (cwd: string, ...args: string[]) => (await repo!.git('-C', cwd, ...args)).stdout;
  const records = () => readdirSync(path.join(root, '.dispatch-runs')).filter((n) => /^resolve-\d+-\w+\.json$/.test(n));
  return {
    root,
    scratch,
    stateDir,
    worktree: (n: number) => path.join(root, '.waves', 'worktrees', `issue-${n}`),
    dispatch: (...args: string[]) => waves(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', ...args], root, env),
    harvest: async (...args: string[]) => {
      const result = await waves(['harvest', '--json', ...args], root, env);
      return { exitCode: result.exitCode, stderr: result.stderr, report: (result.stdout ? JSON.parse(result.stdout) : null) as HarvestReport };
    },
    git,
    recordFile: (n: number) => path.join(root, '.dispatch-runs', records().find((r) => r.startsWith(`resolve-${n}-`))!),
    /** The files of the commit at the tip of a ref, as git says. */
    committed: async (ref: string) => (await git(root, 'diff-tree', '--no-commit-id', '--name-only', '-r', ref)).split('\n').filter(Boolean).sort(),
  };
}

const byIssue = (report: HarvestReport, n: number) => report.runs.find((r) => r.issue.number === n)!;

/** Every entry under a folder, links as links (never followed), files with their content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const file = path.join(rel, name);
      const stat = lstatSync(path.join(dir, file));
      if (stat.isSymbolicLink()) out[file] = `link:${readlinkSync(path.join(dir, file))}`;
      else if (stat.isDirectory()) walk(file);
      else out[file] = readFileSync(path.join(dir, file), 'utf8');
    }
  };
  walk('');
  return out;
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('waves harvest against hostile agents', () => {
  it('never writes, reads for backup or deletes through a symlink: the link is backed up as a link and removed, the files restored', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'waves-outside-'));
    const outsideA = path.join(outside, 'a');
    const outsideC = path.join(outside, 'c');
    try {
      // Folders outside the repository holding a person's files, some with the repository's names.
      mkdirSync(path.join(outsideA, 'src'), { recursive: true });
      writeFileSync(path.join(outsideA, 'src', 'cart.ts'), 'a person\'s cart\n');
      writeFileSync(path.join(outsideA, 'notes.txt'), 'keep me\n');
      mkdirSync(outsideC, { recursive: true });
      writeFileSync(path.join(outsideC, 'staged.ts'), 'precious\n');
      writeFileSync(path.join(outsideC, 'discounts.ts'), 'not the repository\'s\n');
      const before = { a: snapshot(outsideA), c: snapshot(outsideC) };
      const t = await setUp({
        // packages/core (out of #101's fence) becomes a link to a folder outside.
        101: { edit: { 'packages/api/src/routes/checkout.ts': 'export const fixed = 1;\n' }, symlink: [['packages/core', outsideA]] },
        102: {},
        // packages/core/src, the parent of #105's files, becomes a link; a file staged there first
        // would be deleted through it by a restore of the folder.
        105: { edit: { 'packages/core/src/staged.ts': 'staged\n' }, stage: ['packages/core/src/staged.ts'], symlink: [['packages/core/src', outsideC]] },
      });
      expect((await t.dispatch('--worktree')).exitCode).toBe(0);
      const { report } = await t.harvest('--revert-out-of-fence');

      // The folders outside are byte for byte as they were: nothing written, added or deleted there.
      expect(snapshot(outsideA)).toEqual(before.a);
      expect(snapshot(outsideC)).toEqual(before.c);

      const w101 = byIssue(report, 101).witness!;
      expect(w101.reverted).toContain('packages/core');
      // The link is gone from the worktree and the repository's files are back in a real folder.
      const core = path.join(t.worktree(101), 'packages/core');
      expect(lstatSync(core).isDirectory()).toBe(true);
      for (const file of ['src/cart.ts', 'src/money.ts', 'package.json']) {
        expect(lstatSync(path.join(core, file)).isFile()).toBe(true);
        expect(readFileSync(path.join(core, file), 'utf8')).toBe(readFileSync(path.join(t.root, 'packages/core', file), 'utf8'));
      }
      // The backup keeps what was really there: the link, as a link with its target.
      const backup101 = path.join(t.root, w101.notes.join(' ').match(/are in (\S+)$/)![1]!);
      expect(lstatSync(path.join(backup101, 'packages/core')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(path.join(backup101, 'packages/core'))).toBe(outsideA);
      // A link an agent left needs a person, reverted or not.
      expect(w101.status).toBe('needs_person');
      expect(w101.reasons.join(' ')).toMatch(/packages\/core .*symlink/);

      const w105 = byIssue(report, 105).witness!;
      const src = path.join(t.worktree(105), 'packages/core/src');
      expect(lstatSync(src).isSymbolicLink()).toBe(false);
      // Its out-of-fence files under the link are restored; its own (cart.ts, money.ts) are left as the agent left them.
      expect(readFileSync(path.join(src, 'discounts.ts'), 'utf8')).toBe(readFileSync(path.join(t.root, 'packages/core/src/discounts.ts'), 'utf8'));
      const backup105 = path.join(t.root, w105.notes.join(' ').match(/are in (\S+)$/)![1]!);
      expect(readlinkSync(path.join(backup105, 'packages/core/src'))).toBe(outsideC);
      expect(w105.status).toBe('needs_person');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 120_000);

  it('commits with git hooks disabled: a hook the agent planted neither runs nor adds files, and the changed .git needs a person', async () => {
    const hook = (marker: string) => `#!/bin/sh\ntouch '${marker}'\necho '{"name":"hooked"}' > package.json\necho sneaky > sneaky.txt\ngit add package.json sneaky.txt\n`;
    const t0 = mkdtempSync(path.join(tmpdir(), 'waves-marker-'));
    const marker = path.join(t0, 'hook-ran');
    try {
      const t = await setUp({
        101: { edit: { 'packages/api/src/routes/checkout.ts': 'export const fixed = 1;\n' }, hook: hook(marker) },
        102: { edit: { 'packages/web/src/index.ts': 'export {};\n' } },
        105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 2;\n' } },
      });
      expect((await t.dispatch('--worktree')).exitCode).toBe(0);
      const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
      const { exitCode, report } = await t.harvest('--commit');
      expect(exitCode).toBe(4);
      expect(existsSync(marker)).toBe(false);
      const w101 = byIssue(report, 101).witness!;
      expect(w101.status).toBe('needs_person');
      expect(w101.reasons.join(' ')).toMatch(/\.git changed during the run: hooks\/pre-commit added/);
      for (const n of [101, 102, 105]) {
        // Whatever was committed holds only the issue's files, and the record says exactly what it holds.
        const changed = (await t.git(t.root, 'diff', '--name-only', base, `waves/issue-${n}`)).split('\n').filter(Boolean);
        expect(changed).not.toContain('package.json');
        expect(changed).not.toContain('sneaky.txt');
        const commit = byIssue(report, n).witness!.commit;
        if (commit) expect(commit.paths).toEqual(await t.committed(commit.sha));
      }
    } finally {
      rmSync(t0, { recursive: true, force: true });
    }
  }, 120_000);

  it('never runs the person\'s own hooks either: each commit holds exactly the in-fence paths', async () => {
    const t0 = mkdtempSync(path.join(tmpdir(), 'waves-marker-'));
    const marker = path.join(t0, 'hook-ran');
    try {
      const t = await setUp({
        101: { edit: { 'packages/api/src/routes/checkout.ts': 'export const fixed = 1;\n' } },
        102: { edit: { 'packages/web/src/index.ts': 'export {};\n' } },
        105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 2;\n' } },
      });
      // Installed before the dispatch: not a change any run made.
      const hooks = path.join(t.root, '.git', 'hooks');
      mkdirSync(hooks, { recursive: true });
      writeFileSync(path.join(hooks, 'pre-commit'), `#!/bin/sh\ntouch '${marker}'\necho '{"name":"hooked"}' > package.json\ngit add package.json\n`, { mode: 0o755 });
      expect((await t.dispatch('--worktree')).exitCode).toBe(0);
      const { exitCode, report } = await t.harvest('--commit');
      expect(exitCode, JSON.stringify(report.runs.map((r) => r.witness?.reasons))).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(await t.committed('waves/issue-101')).toEqual(['packages/api/src/routes/checkout.ts']);
      for (const n of [101, 102, 105]) {
        const commit = byIssue(report, n).witness!.commit!;
        expect(commit.paths).toEqual(await t.committed(`waves/issue-${n}`));
      }
    } finally {
      rmSync(t0, { recursive: true, force: true });
    }
  }, 120_000);

  it('runs no git command in a work tree whose git config an agent changed', async () => {
    const t0 = mkdtempSync(path.join(tmpdir(), 'waves-marker-'));
    const marker = path.join(t0, 'filter-ran');
    // A clean filter on every file: git runs it when it reads a changed file of the work tree.
    writeFileSync(path.join(t0, 'attributes'), '* filter=evil\n');
    try {
      const t = await setUp({
        101: {
          edit: { 'packages/api/src/routes/checkout.ts': 'export const fixed = 1;\n' },
          // A filter on every file; the marker notes a run in #101's worktree.
          gitConfig: [['filter.evil.clean', `sh -c 'case "$PWD" in *issue-101*) touch ${marker};; esac; cat'`], ['core.attributesFile', path.join(t0, 'attributes')]],
        },
        102: {},
        105: {},
      });
      expect((await t.dispatch('--worktree')).exitCode).toBe(0);
      rmSync(marker, { force: true });
      const run = path.basename(t.recordFile(101), '.json');
      // The filter is in the common config: no git runs anywhere until it is removed (or trusted).
      const refused = await t.harvest('--run', run, '--commit', '--revert-out-of-fence');
      expect(refused.exitCode).toBe(2);
      // core.attributesFile is watched too (it chooses the driver): either is named first.
      expect(refused.stderr.trim()).toMatch(/^waves: git config names a program you have not trusted: (filter\.evil\.clean|core\.attributesfile)=.*\(and 1 more\)/);
      expect(existsSync(marker)).toBe(false);
      await t.git(t.root, 'config', '--unset', 'filter.evil.clean');
      // The attributes file names no program of its own: trusted, the harvest goes on and sees .git changed.
      expect((await waves(['trust', '--yes'], t.root, { WAVES_STATE_DIR: t.stateDir })).exitCode).toBe(0);
      const { report } = await t.harvest('--run', run, '--commit', '--revert-out-of-fence');
      const w = report.runs[0]!.witness!;
      expect(w.status).toBe('needs_person');
      expect(w.reasons.join(' ')).toMatch(/\.git changed during the run: config modified/);
      expect(w.commit).toBeNull();
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(t0, { recursive: true, force: true });
    }
  }, 120_000);

  it('trusts the sealed record, not the one in the repository: a rewritten fence or a missing seal needs a person', async () => {
    const t = await setUp({
      101: { edit: { 'packages/api/src/routes/checkout.ts': 'export const fixed = 1;\n', 'package.json': '{"name":"changed"}\n' } },
      102: { edit: { 'packages/web/src/index.ts': 'export {};\n' } },
      105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 2;\n' } },
    });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    // A process that escaped its run rewrites the record once the run is settled. (The supervisor's
    // tracker stops the leftovers it can find — the fake agent's rewriteRecord daemon among them,
    // see test/cli/supervision — so the rewrite is done here, as one it could not find would.)
    const copy = JSON.parse(readFileSync(t.recordFile(101), 'utf8')) as { scope: { fence: string[] } };
    writeFileSync(t.recordFile(101), JSON.stringify({ ...copy, scope: { ...copy.scope, fence: ['./'] } }, null, 2));
    // The seals live in the state directory, one folder per repository, readable by the user alone.
    const seals = readdirSync(t.stateDir, { recursive: true, encoding: 'utf8' }).filter((n) => /resolve-\d+-\w+\.json$/.test(n));
    expect(seals).toHaveLength(3);
    for (const seal of seals) expect(statSync(path.join(t.stateDir, seal)).mode & 0o777).toBe(0o600);
    unlinkSync(path.join(t.stateDir, seals.find((s) => path.basename(s).startsWith('resolve-105-'))!));
    // A copy garbled in the repository does not take its run out of the harvest.
    const garbled = t.recordFile(102);
    writeFileSync(garbled, 'garbage');

    const base = (await t.git(t.root, 'rev-parse', 'main')).trim();
    const { exitCode, report } = await t.harvest('--commit');
    expect(exitCode).toBe(4);
    const w101 = byIssue(report, 101).witness!;
    expect(w101.status).toBe('needs_person');
    expect(w101.reasons.join(' ')).toMatch(/its run record was rewritten after dispatch: scope\.fence/);
    expect(w101.commit).toBeNull();
    expect(w101.outOfFence.map((c) => c.path)).toEqual(['package.json']);
    expect((await t.git(t.root, 'diff', '--name-only', base, 'waves/issue-101')).trim()).toBe('');
    const w105 = byIssue(report, 105).witness!;
    expect(w105.status).toBe('needs_person');
    expect(w105.reasons.join(' ')).toMatch(/no sealed copy/);
    expect((await t.git(t.root, 'rev-parse', 'waves/issue-105')).trim()).toBe(base);
    const w102 = byIssue(report, 102).witness!;
    expect(w102.status).toBe('needs_person');
    expect(w102.reasons.join(' ')).toMatch(/copy in the repository is gone or unreadable/);
    expect(w102.commit).toBeNull();
    // The copy is written back from the seal, with the witness.
    expect((JSON.parse(readFileSync(garbled, 'utf8')) as { witness: { status: string } }).witness.status).toBe('needs_person');
  }, 120_000);

  it('needs a person for a symlink in place of a file, committed or not, and sees files hidden with .git/info/exclude', async () => {
    const t = await setUp({
      // In place of an in-fence file: a link out of the repository.
      101: { symlink: [['packages/api/src/routes/checkout.ts', '/etc/hostname']] },
      // A link inside the repository, committed by the agent.
      102: { edit: { 'packages/web/src/components/Discount.tsx': 'export const D = 1;\n' }, symlink: [['packages/web/src/index.ts', '../../../package.json']], commit: 'agent link' },
      // A file outside the fence, hidden from git's usual listing.
      105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 2;\n', 'scratch/hidden.txt': 'hidden\n' }, exclude: ['scratch/'] },
    });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const { exitCode, report } = await t.harvest('--commit');
    expect(exitCode).toBe(4);
    const w101 = byIssue(report, 101).witness!;
    expect(w101.status).toBe('needs_person');
    expect(w101.reasons.join(' ')).toMatch(/packages\/api\/src\/routes\/checkout\.ts is a symlink/);
    expect(w101.commit).toBeNull();
    const w102 = byIssue(report, 102).witness!;
    expect(w102.status).toBe('needs_person');
    expect(w102.reasons.join(' ')).toMatch(/packages\/web\/src\/index\.ts is a symlink/);
    expect(w102.commit).toBeNull();
    expect((await t.git(t.root, 'log', '--format=%s', '-1', 'waves/issue-102')).trim()).toBe('agent link');
    const w105 = byIssue(report, 105).witness!;
    expect(w105.changed.map((c) => c.path)).toContain('scratch/hidden.txt');
    expect(w105.outOfFence.map((c) => c.path)).toContain('scratch/hidden.txt');
    expect(w105.status).toBe('needs_person');
    expect(w105.commit).toBeNull();
  }, 120_000);

  it('sees files a .gitignore of the run hides, itself among them: the rules are those of the base', async () => {
    const t = await setUp({
      // An in-fence edit, and beside it a .gitignore that ignores itself and a file outside the fence.
      105: { edit: { 'packages/core/src/cart.ts': 'export const cart = 2;\n', 'packages/api/src/.gitignore': '.gitignore\nevil.ts\n', 'packages/api/src/evil.ts': 'export const pwn = 1;\n' } },
    });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const { exitCode, report } = await t.harvest('--commit');
    expect(exitCode).toBe(4);
    const w = byIssue(report, 105).witness!;
    expect(w.outOfFence.map((c) => c.path)).toEqual(expect.arrayContaining(['packages/api/src/.gitignore', 'packages/api/src/evil.ts']));
    expect(w.status).toBe('needs_person');
    expect(w.commit).toBeNull();
  }, 120_000);
});
