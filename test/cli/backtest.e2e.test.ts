import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BacktestReportSchema, type BacktestReport } from '@waves/planner';
import { historyRepo } from '../helpers/backtest-history.js';
import { killAll, waitFor } from '../helpers/processes.js';
import { TempRepo } from '../helpers/temp-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');

function waves(args: string[], cwd = ROOT) {
  return execa('node', [BIN, 'backtest', ...args], { cwd, reject: false, stdin: 'ignore', env: { NO_COLOR: '1' } });
}

let repo: TempRepo;
let base: string;
let temp: string;

beforeAll(async () => {
  ({ repo, base } = await historyRepo());
  temp = await mkdtemp(path.join(tmpdir(), 'waves-backtest-'));
});
afterAll(async () => {
  await repo.dispose();
  await rm(temp, { recursive: true, force: true });
});

async function report(args: string[]): Promise<BacktestReport> {
  const result = await waves(['--root', repo.root, '--json', ...args]);
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  return BacktestReportSchema.parse(JSON.parse(result.stdout));
}

/** Nothing left behind: no worktree registered but the repository's own, nothing under .waves/backtest, git status clean. */
async function expectNoWorktreeLeft(r: TempRepo = repo): Promise<void> {
  const list = await r.git('worktree', 'list', '--porcelain');
  expect(list.stdout.split('\n').filter((l) => l.startsWith('worktree ')).length).toBe(1);
  const dir = path.join(r.root, '.waves/backtest');
  expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  expect((await r.git('status', '--porcelain')).stdout).toBe('');
}

describe('waves backtest, end to end', () => {
  it('replays the history against the base and reports the truth, the reference, the plan and the rules as JSON', async () => {
    const json = await report(['--last', '12']);
    const F = json.issues.find((i) => i.title === 'feat: f (#3)')!.number;
    expect(json.repo).toMatchObject({ base, commits: 12, since: null });
    expect(json.issues.map((i) => i.number)).toEqual([1, 2, 3, 4, 5, 6, F, 11]);
    expect(F).not.toBe(3);
    expect(json.skipped.map((s) => s.reason)).toEqual(['merge', 'no-files', 'only-tests', 'no-code']);
    expect(json.trueConflicts.map((c) => [c.a, c.b, c.evidence.map((e) => e.detail).join('; ')])).toEqual([
      [1, 2, 'src/a.ts (#1) imports src/b.ts (#2)'],
      [1, 6, 'both touch src/a.ts'],
      [2, 6, 'src/a.ts (#6) imports src/b.ts (#2)'],
      [3, 11, 'src/d.ts (#11) imports src/c.ts (#3)'],
      [4, F, `lib/g.ts (#4) imports lib/f.ts (#${F})`],
    ]);
    expect(json.referenceWaves).toEqual([[1, 3, 4, 5], [2, F, 11], [6]]);
    expect(json.summary).toEqual({ issues: 8, dispatched: 8, dispatchedShare: 1, waves: 3, referenceWaves: 3, wavesRatio: 1, violations: 0, truePairs: 5 });
    expect(json.rules.map((r) => [r.rule, r.wavesCost, r.alonePrevented])).toEqual([
      ['root-files', 0, 0],
      ['serial-config', 0, 0],
      ['hub', 0, 0],
      ['import', 1, 4],
      ['path', 1, 1],
      ['dependency', 0, 0],
      ['subdivide', 0, 0],
      ['triage', null, 0],
    ]);
    expect(json.options.truth).toEqual({ source: 'waves', file: null, edges: 4 });
    await expectNoWorktreeLeft();
  });

  it('gives the same report for the same range named with --since, with or without the cache', async () => {
    const first = await report(['--last', '12']);
    const since = await report(['--since', base]);
    expect({ ...since, repo: { ...since.repo, since: null } }).toEqual(first);
    // The whole tree checked out and read, or only what the cache lacks: the same report.
    expect(await report(['--last', '12', '--no-cache'])).toEqual(first);
    const shorter = await report(['--since', 'HEAD~3', '--until', 'HEAD~1']);
    expect(shorter.repo.commits).toBe(2);
    expect(shorter.issues.map((i) => i.title)).toEqual(['feat: f (#3)', 'feat: d (#11)']);
  });

  it('prints tables, and markdown for a pull request', async () => {
    const table = await waves(['--root', repo.root, '--last', '12']);
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toContain(`12 first-parent commit(s), the last 12 up to`);
    expect(table.stdout).toContain('Backlog: 8 issue(s), one per commit (skipped: 1 merge(s); 1 with only docs, markdown, lockfiles or ESLint suppressions; 1 with only tests; 1 with no code file)');
    expect(table.stdout).toMatch(/│ Waves\s+│ 3 \(reference 3: 1\.00×\)\s+│/);
    expect(table.stdout).toMatch(/│ import at depth 1\s+│ —\s+│ 4\s+│ 4\s+│ \+1\s+│ 4\s+│/);
    expect(table.stdout.trimEnd().split('\n').at(-1)).toBe('0 violation(s) · 3 (reference 3: 1.00×) wave(s) · 8 of 8 dispatched (100.0%)');
    const markdown = await waves(['--root', repo.root, '--last', '12', '--format', 'markdown']);
    expect(markdown.exitCode).toBe(0);
    expect(markdown.stdout).toContain('### Backtest');
    expect(markdown.stdout).toContain('| 0 | 3 (reference 3: 1.00×) | 8 of 8 (100.0%) |');
    expect(markdown.stdout).toContain('| root files | 1 | 0 | 0 | 0 | 0 |');
  });

  it('judges by dependency-cruiser edges when given, and shows each violation with its evidence', async () => {
    const file = path.join(temp, 'dc.json');
    await writeFile(file, JSON.stringify({ modules: [{ source: 'src/c.ts', dependencies: [{ resolved: 'lib/g.ts' }] }] }));
    const json = await report(['--last', '12', '--truth-graph', file]);
    expect(json.options.truth).toEqual({ source: 'dependency-cruiser', file, edges: 1 });
    expect(json.trueConflicts.map((c) => [c.a, c.b])).toEqual([
      [1, 6],
      [3, 4],
    ]);
    expect(json.violations).toEqual([{ wave: 1, a: 3, b: 4, evidence: [{ kind: 'import', detail: 'src/c.ts (#3) imports lib/g.ts (#4)' }] }]);
    const table = await waves(['--root', repo.root, '--last', '12', '--truth-graph', file]);
    expect(table.stdout).toMatch(/Violations \(1\): pairs in one wave that truly conflict[\s\S]*│ 1\s+│ #3 feat: c \(#3\)\s+│ src\/c\.ts \(#3\) imports lib\/g\.ts \(#4\)\s+│\n│\s+│ #4 feat: n and g \(#4\)/);
  });

  it('prints the JSON Schema of its report', async () => {
    const result = await execa('node', [BIN, 'schema', 'backtest'], { reject: false, stdin: 'ignore' });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ title: 'waves backtest --json (schemaVersion 1)', properties: { summary: { type: 'object' } } });
  });

  it('refuses bad flags, bad ranges and roots that are not the top of a repository with one line and exit code 2', async () => {
    const root = await historyRootCommit();
    const cases: [string[], RegExp][] = [
      [['--root', temp], /--root .*: not a git repository/],
      [['--root', path.join(repo.root, 'src')], /not the top of its git repository/],
      [['--root', path.join(temp, 'nope')], /--root .*: no such directory/],
      [['--root', repo.root, '--until', 'nope'], /--until "nope": not a commit of this repository/],
      [['--root', repo.root, '--until=--output=x'], /--until "--output=x": not a commit/],
      [['--root', repo.root, '--since', 'HEAD~1', '--until', 'HEAD~4'], /--since HEAD~1 is not an ancestor of --until HEAD~4/],
      [['--root', repo.root, '--since', 'HEAD', '--until', 'HEAD'], /the range is empty/],
      [['--root', repo.root, '--since', 'HEAD~2', '--last', '3'], /--last and --since/],
      [['--root', repo.root, '--last', '0'], /--last: expected an integer of at least 1/],
      [['--root', repo.root, '--grade', 'lines'], /--grade: expected one of files, dirs, title/],
      [['--root', repo.root, '--json', '--format', 'markdown'], /--json and --format markdown/],
      [['--root', repo.root, '--until', root], /first commit: there is no history before it/],
      [['--root', repo.root, '--truth-graph', path.join(temp, 'missing.json')], /--truth-graph .*missing\.json: cannot read it \(no such file\)/],
    ];
    for (const [args, message] of cases) {
      const result = await waves(args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    const garbled = path.join(temp, 'garbled.json');
    await writeFile(garbled, '{"files": 3, "imports": 2}');
    const noEdges = await waves(['--root', repo.root, '--truth-graph', garbled]);
    expect(noEdges.exitCode).toBe(2);
    expect(noEdges.stderr).toContain('make it with waves graph --json --edges');
    await expectNoWorktreeLeft();
  });

  it('replays what a shallow clone holds, and refuses a range reaching past it', async () => {
    const shallow = path.join(temp, 'shallow');
    await execa('git', ['clone', '-q', '--depth', '4', `file://${repo.root}`, shallow]);
    const ok = await waves(['--root', shallow, '--last', '3', '--json']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(BacktestReportSchema.parse(JSON.parse(ok.stdout)).repo.commits).toBe(3);
    const tooFar = await waves(['--root', shallow, '--last', '12']);
    expect(tooFar.exitCode).toBe(2);
    expect(tooFar.stderr.trim()).toMatch(/^waves: the history stops at [0-9a-f]{12}, 4 commit\(s\) back from --until: the range needs its parent \(this clone is shallow: git fetch --unshallow/);
  });

  it('checks out no blob larger than the graph reads, so a clone lacking one still replays; a lacking source is an error of the repository', async () => {
    const partial = await TempRepo.create({
      'package.json': '{ "name": "p", "private": true }\n',
      'src/a.ts': 'export const a = 1;\n',
      // Generated, past the 2 MB the graph reads of a file (a JSON: the checkout takes every *.json).
      'gen/typedoc.json': `{"x":"${'y'.repeat(2 * 1024 * 1024)}"}\n`,
    });
    try {
      await partial.write({ 'src/a.ts': 'export const a = 2;\n' });
      await partial.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qam', 'fix: a (#2)');
      // The clone lacks the big blob (as a snapshot without its largest files, or a partial clone).
      const blob = (await partial.git('rev-parse', 'HEAD:gen/typedoc.json')).stdout.trim();
      await rm(path.join(partial.root, '.git/objects', blob.slice(0, 2), blob.slice(2)));
      const result = await waves(['--root', partial.root, '--last', '1', '--json']);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(BacktestReportSchema.parse(JSON.parse(result.stdout)).issues.map((i) => i.title)).toEqual(['fix: a (#2)']);
      await expectNoWorktreeLeft(partial);

      // A source file the clone lacks cannot be checked out: one line naming the base and git's reason, exit code 2.
      const source = (await partial.git('rev-parse', 'HEAD~1:src/a.ts')).stdout.trim();
      await rm(path.join(partial.root, '.git/objects', source.slice(0, 2), source.slice(2)));
      const lacking = await waves(['--root', partial.root, '--last', '1', '--no-cache']);
      expect(lacking.exitCode).toBe(2);
      expect(lacking.stderr.trim()).toMatch(new RegExp(`^waves: the checkout of the base [0-9a-f]{12} failed: .*${source}`));
      await expectNoWorktreeLeft(partial);
    } finally {
      await partial.dispose();
    }
  });

  it('skips, and says so, the names that are not UTF-8: two of them never become one path and a conflict the commits never had (red team F9)', async () => {
    const bytes = await TempRepo.create({ 'package.json': '{ "name": "b", "private": true }\n', 'src/a.ts': 'export const a = 1;\n' });
    try {
      const commit = (subject: string) => bytes.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', subject);
      // Written by byte: src/bad\xff.ts, then src/bad\xfe.ts (a lossy decoding makes both src/bad\ufffd.ts).
      for (const [byte, subject] of [[0xff, 'fix: one (#2)'], [0xfe, 'fix: two (#3)']] as const) {
        await writeFile(Buffer.concat([Buffer.from(path.join(bytes.root, 'src', 'bad')), Buffer.from([byte]), Buffer.from('.ts')]), 'export const x = 1;\n');
        await bytes.git('add', '-A');
        await commit(subject);
      }
      const result = await waves(['--root', bytes.root, '--last', '2', '--json']);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr.trim()).toBe("waves: 2 file name(s) the range's commits change are not valid UTF-8 and were skipped, as the file listing skips them (rename them)");
      const report = BacktestReportSchema.parse(JSON.parse(result.stdout));
      expect(result.stdout).not.toContain('\ufffd');
      expect(report.rules.find((r) => r.rule === 'path')).toMatchObject({ truePairs: 0 });
    } finally {
      await bytes.dispose();
    }
  });

  it('refuses a base that does not check out clean, and removes its worktree', async () => {
    const dirty = await TempRepo.create({ '.gitattributes': 'a.ts filter=stray\n', 'a.ts': 'export const a = 1;\n' });
    try {
      // A checkout filter of the repository's config that leaves a file behind in the work tree.
      await dirty.git('config', 'filter.stray.smudge', 'touch stray.txt; cat');
      await dirty.git('config', 'filter.stray.clean', 'cat');
      await dirty.write({ 'a.ts': 'export const a = 2;\n' });
      await dirty.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qam', 'a (#2)');
      // The person set the filter in the repository's own config: they trust it once.
      await execa('node', [BIN, 'trust', '--yes', '--root', dirty.root], { reject: false, stdin: 'ignore' });
      const result = await waves(['--root', dirty.root, '--last', '1']);
      expect(result.exitCode).toBe(2);
      expect(result.stderr.trim()).toMatch(/^waves: the base [0-9a-f]{12} does not check out clean: stray\.txt differ\(s\) from the commit once checked out/);
      await expectNoWorktreeLeft(dirty);
    } finally {
      await dirty.dispose();
    }
  });

  it('on Ctrl-C removes its worktree and exits 130', async () => {
    const slow = await TempRepo.create({ '.gitattributes': 'a.ts filter=slow\n', 'a.ts': 'export const a = 1;\n' });
    const started = path.join(temp, 'started');
    let pid: number | undefined;
    try {
      await slow.git('config', 'filter.slow.smudge', `touch ${started}; sleep 60; cat`);
      await slow.git('config', 'filter.slow.clean', 'cat');
      await slow.write({ 'a.ts': 'export const a = 2;\n' });
      await slow.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qam', 'a (#2)');
      await execa('node', [BIN, 'trust', '--yes', '--root', slow.root], { reject: false, stdin: 'ignore' });
      // Its own process group, as a terminal's foreground job: Ctrl-C reaches waves and the git it runs.
      const child = execa('node', [BIN, 'backtest', '--root', slow.root, '--last', '1'], { reject: false, stdin: 'ignore', detached: true });
      pid = child.pid;
      await waitFor('the checkout of the base to start', () => existsSync(started));
      process.kill(-pid!, 'SIGINT');
      const result = await child;
      expect(result.exitCode).toBe(130);
      expect(result.stderr.trim()).toBe('waves: backtest interrupted; its temporary worktree is removed');
      await expectNoWorktreeLeft(slow);
    } finally {
      killAll([pid]);
      await slow.dispose();
    }
  });

  it('removes the worktree a killed backtest left behind', async () => {
    const dead = execa('node', ['-e', '']);
    await dead;
    const stale = path.join(repo.root, '.waves/backtest', `${dead.pid}-${base.slice(0, 12)}`);
    await repo.git('worktree', 'add', '-q', '--detach', stale, base);
    await report(['--last', '2']);
    expect(existsSync(stale)).toBe(false);
    await expectNoWorktreeLeft();
  });
});

async function historyRootCommit(): Promise<string> {
  return (await repo.git('rev-list', '--max-parents=0', 'HEAD')).stdout.trim();
}
