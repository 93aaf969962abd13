/**
 * Files waves reads back that an agent (or a cloned repository) can replace: a run record, the
 * lease journal, the repository's config and the files it names. A FIFO in their place must
 * never hang a command (a blocked read is deaf to SIGTERM), and `.waves` or `.dispatch-runs`
 * committed as symbolic links must never make waves write outside the repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, exampleRepo, FAKE_AGENT_CONFIG, TEST_STATE_DIR } from '../helpers/example-repo.js';
import type { TempRepo } from '../helpers/temp-repo.js';

/** Runs the built CLI, killed (SIGKILL: a blocked read ignores SIGTERM) if it is still running after `ms`. */
function wavesWithin(args: string[], cwd: string, ms = 15_000, env: Record<string, string> = {}) {
  return execa(process.execPath, [BIN, ...args], { cwd, reject: false, stdin: 'ignore', timeout: ms, killSignal: 'SIGKILL', env: { WAVES_STATE_DIR: TEST_STATE_DIR, ...env } });
}

const mkfifo = (file: string) => execFileSync('mkfifo', [file]);
const lines = (text: string) => text.trim().split('\n').filter(Boolean);

let repo: TempRepo;
beforeAll(async () => {
  repo = await exampleRepo({ agents: FAKE_AGENT_CONFIG });
}, 60_000);
afterAll(async () => {
  await repo.dispose();
});

/** Writes the repository's config for one test (the files it names are the test's to create). */
function config(value: unknown): void {
  writeFileSync(path.join(repo.root, 'waves.config.json'), JSON.stringify(value));
}

describe('a FIFO where waves reads a file back', () => {
  it('skips a run record replaced by a FIFO in waves harvest and waves status, promptly', async () => {
    config({ agents: FAKE_AGENT_CONFIG });
    const dispatched = await wavesWithin(['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--wave-size', '1'], repo.root, 60_000);
    expect(dispatched.exitCode, dispatched.stderr).toBe(0);
    const runs = path.join(repo.root, '.dispatch-runs');
    const record = readdirSync(runs).find((n) => /^resolve-\d+-\w+\.json$/.test(n))!;
    rmSync(path.join(runs, record));
    mkfifo(path.join(runs, record));

    const status = await wavesWithin(['status'], repo.root);
    expect(status.timedOut).toBe(false);
    expect(status.exitCode, status.stderr).toBe(0);

    const harvest = await wavesWithin(['harvest', '--run', record.replace(/\.json$/, ''), '--json'], repo.root, 30_000);
    expect(harvest.timedOut).toBe(false);
    // The seal speaks; the copy counts as rewritten (gone or unreadable): a person must look.
    expect(harvest.exitCode, harvest.stderr).toBe(4);
    expect(harvest.stdout).toMatch(/the copy in the repository is gone or unreadable/);
    rmSync(runs, { recursive: true, force: true });
    rmSync(path.join(repo.root, '.waves', 'leases.jsonl'), { force: true });
  }, 90_000);

  it('ends waves lease list, waves status and waves plan with one line, exit 2, when the lease journal is a FIFO', async () => {
    config({});
    mkdirSync(path.join(repo.root, '.waves'), { recursive: true });
    const journal = path.join(repo.root, '.waves', 'leases.jsonl');
    rmSync(journal, { force: true });
    mkfifo(journal);
    try {
      for (const args of [['lease', 'list'], ['status'], ['plan', '--from-issues', 'backlog.json'], ['lease', 'acquire', 'packages/api', '--ttl', '5m']]) {
        const result = await wavesWithin(args, repo.root);
        expect(result.timedOut, args.join(' ')).toBe(false);
        expect(result.exitCode, args.join(' ')).toBe(2);
        expect(lines(result.stderr), args.join(' ')).toEqual([expect.stringMatching(/^waves: lease journal .*leases\.jsonl: is not a regular file \(a FIFO\)/)]);
      }
    } finally {
      rmSync(journal, { force: true });
    }
  }, 60_000);

  it("refuses a repository config's prompt.file, defaults.fromIssues or leases.journal that is a FIFO, and a FIFO config", async () => {
    const fifo = path.join(repo.root, 'pipe');
    mkfifo(fifo);
    // A repository's journal must be under .waves/ (red team 2, #8).
    const journalFifo = path.join(repo.root, '.waves/pipe.jsonl');
    mkdirSync(path.dirname(journalFifo), { recursive: true });
    mkfifo(journalFifo);
    try {
      const cases: [unknown, string[], number, RegExp][] = [
        [{ agents: FAKE_AGENT_CONFIG, prompt: { file: 'pipe' } }, ['dispatch', '--dry-run', '--from-issues', 'backlog.json', '--agent', 'fake'], 2, /^waves: config prompt\.file pipe: is not a regular file \(a FIFO\)/],
        [{ defaults: { fromIssues: 'pipe' } }, ['plan'], 2, /^waves: issues file pipe: is not a regular file \(a FIFO\)/],
        [{ leases: { journal: '.waves/pipe.jsonl' } }, ['plan', '--from-issues', 'backlog.json'], 2, /^waves: lease journal .*pipe\.jsonl: is not a regular file \(a FIFO\)/],
      ];
      for (const [value, args, exitCode, message] of cases) {
        config(value);
        const result = await wavesWithin(args, repo.root);
        expect(result.timedOut, JSON.stringify(value)).toBe(false);
        expect(result.exitCode, `${JSON.stringify(value)}: ${result.stderr}`).toBe(exitCode);
        expect(lines(result.stderr), JSON.stringify(value)).toEqual([expect.stringMatching(message)]);
      }
      rmSync(path.join(repo.root, 'waves.config.json'));
      mkfifo(path.join(repo.root, 'waves.config.json'));
      const result = await wavesWithin(['plan', '--from-issues', 'backlog.json'], repo.root);
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBe(2);
      expect(lines(result.stderr)).toEqual([expect.stringMatching(/^waves: config waves\.config\.json: is not a regular file \(a FIFO\)/)]);
    } finally {
      rmSync(fifo, { force: true });
      rmSync(journalFifo, { force: true });
      rmSync(path.join(repo.root, 'waves.config.json'), { force: true });
      config({ agents: FAKE_AGENT_CONFIG });
    }
  }, 60_000);
});

describe('.waves and .dispatch-runs committed as symbolic links', () => {
  it('refuses to use either, with one line naming it, and writes nothing through it', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'waves-outside-'));
    try {
      for (const name of ['.waves', '.dispatch-runs']) {
        rmSync(path.join(repo.root, name), { recursive: true, force: true });
        symlinkSync(outside, path.join(repo.root, name));
        const mine = path.join(repo.root, '..', `${path.basename(repo.root)}-mine.json`);
        writeFileSync(mine, JSON.stringify({ agents: FAKE_AGENT_CONFIG }));
        for (const args of [['graph'], ['plan', '--from-issues', 'backlog.json'], ['dispatch', '--from-issues', 'backlog.json', '--agent', 'fake', '--worktree', '--config', mine], ['status'], ['lease', 'list']]) {
          const result = await wavesWithin(args, repo.root, 30_000);
          expect(result.exitCode, `${name}: ${args.join(' ')}: ${result.stderr}`).toBe(2);
          expect(lines(result.stderr), `${name}: ${args.join(' ')}`).toEqual([`waves: ${name}: a symbolic link in the repository (to ${outside}); waves keeps its own files there and never follows a link: remove it`]);
        }
        expect(readdirSync(outside), name).toEqual([]);
        rmSync(path.join(repo.root, name));
      }
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 120_000);

  it('names the directory, not a config file that does not exist, when there is no config', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'waves-outside-'));
    rmSync(path.join(repo.root, 'waves.config.json'), { force: true });
    rmSync(path.join(repo.root, '.waves'), { recursive: true, force: true });
    symlinkSync(outside, path.join(repo.root, '.waves'));
    try {
      const result = await wavesWithin(['plan', '--from-issues', 'backlog.json'], repo.root);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).not.toMatch(/waves\.config\.json/);
      expect(result.stderr).toMatch(/^waves: \.waves: a symbolic link/);
      expect(existsSync(path.join(outside, 'cache'))).toBe(false);
      // The journal itself a link out, in a real .waves: named as waves' default, not as a config's.
      rmSync(path.join(repo.root, '.waves'));
      mkdirSync(path.join(repo.root, '.waves'));
      symlinkSync(path.join(outside, 'journal'), path.join(repo.root, '.waves', 'leases.jsonl'));
      const journal = await wavesWithin(['plan', '--from-issues', 'backlog.json'], repo.root);
      expect(journal.exitCode).toBe(2);
      expect(lines(journal.stderr)).toEqual([
        'waves: leases.journal ".waves/leases.jsonl" (the default; there is no config) is a symbolic link that leads nowhere (it could be created outside the repository); remove the link',
      ]);
    } finally {
      rmSync(path.join(repo.root, '.waves'), { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
      config({ agents: FAKE_AGENT_CONFIG });
    }
  });
});

describe("a tsconfig's extends out of the repository", () => {
  it('is skipped with a warning by waves plan, never read, whether it names /dev/zero, a FIFO or /etc/passwd', async () => {
    const fifo = path.join(mkdtempSync(path.join(tmpdir(), 'waves-fifo-')), 'base.json');
    mkfifo(fifo);
    const tsconfig = path.join(repo.root, 'tsconfig.json');
    const original = readFileSync(tsconfig, 'utf8');
    try {
      for (const target of ['/dev/zero', '../../../../../../../../../dev/zero', fifo, '/etc/passwd']) {
        writeFileSync(tsconfig, JSON.stringify({ extends: target }));
        const result = await wavesWithin(['plan', '--from-issues', 'backlog.json', '--no-cache'], repo.root, 30_000);
        expect(result.timedOut, target).toBe(false);
        expect(result.exitCode, `${target}: ${result.stderr}`).toBe(0);
        const shown = target.startsWith('../') ? '/dev/zero' : target;
        expect(lines(result.stderr), target).toEqual([`waves: skipped tsconfig.json: its extends chain names ${shown}, which is outside the repository and not a package's (not read)`]);
      }
    } finally {
      writeFileSync(tsconfig, original);
      rmSync(path.dirname(fifo), { recursive: true, force: true });
    }
  }, 120_000);
});
