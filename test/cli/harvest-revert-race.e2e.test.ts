/**
 * `waves harvest --revert-out-of-fence` racing a process that keeps swapping a folder of the work
 * tree for a symlink to a folder outside it (red team, round 1: finding 1). A check of the path
 * followed by an act on it is not enough: the swap comes in between. The folders outside must come
 * out byte for byte as they were, nothing of theirs may land in the backup, and each harvest ends
 * with a documented exit code and one result per run, never an internal error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostileSetup, type Hostile } from '../helpers/hostile-setup.js';
import { alive, killAll, waitFor } from '../helpers/processes.js';

let t: Hostile | null = null;
let outside: string | null = null;
const swappers: ChildProcess[] = [];
afterEach(async () => {
  killAll(swappers.map((s) => s.pid));
  swappers.length = 0;
  await t?.dispose();
  t = null;
  if (outside) rmSync(outside, { recursive: true, force: true });
  outside = null;
});

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

/**
 * A test-side process (not the agent: nothing of the run's marks it) that keeps renaming `name`
 * away and putting a link to `target` in its place, then putting the folder back.
 */
const SWAPPER = `
const fs = require('node:fs');
const [dir, name, target] = process.argv.slice(1);
process.chdir(dir);
const nap = new Int32Array(new SharedArrayBuffer(4));
const pause = () => Atomics.wait(nap, 0, 0, 0.3);
process.send?.('ready');
for (;;) {
  try {
    const stat = fs.lstatSync(name, { throwIfNoEntry: false });
    if (stat?.isDirectory()) {
      fs.renameSync(name, name + '.real');
      fs.symlinkSync(target, name);
      pause();
      fs.unlinkSync(name);
      fs.renameSync(name + '.real', name);
    } else if (!stat) {
      fs.renameSync(name + '.real', name);
    }
  } catch {}
  pause();
}`;

function startSwapper(dir: string, name: string, target: string): void {
  const child = spawn(process.execPath, ['-e', SWAPPER, dir, name, target], { stdio: 'ignore', detached: true });
  swappers.push(child);
}

describe('waves harvest --revert-out-of-fence racing a swapper', () => {
  it('never deletes, writes or backs up anything outside the work tree while a folder keeps turning into a link', async () => {
    outside = mkdtempSync(path.join(tmpdir(), 'waves-victim-'));
    // The person's files outside the repository, under the names the agent's files have.
    const edits: Record<string, string> = { 'packages/web/src/index.ts': 'export {};\n', 'packages/api/src/routes/checkout.ts': 'export const changed = 1;\n' };
    mkdirSync(path.join(outside, 'sub'));
    mkdirSync(path.join(outside, 'routes'));
    for (let i = 0; i < 300; i++) {
      edits[`packages/api/x/sub/f${i}.txt`] = `agent ${i}\n`;
      writeFileSync(path.join(outside, 'sub', `f${i}.txt`), `precious ${i}\n`);
    }
    writeFileSync(path.join(outside, 'routes', 'checkout.ts'), 'precious checkout\n');
    const before = snapshot(outside);
    // #102's fence is packages/web/ (and discounts.ts): everything under packages/api is out of it.
    t = await hostileSetup({ fake: { 102: { edit: edits } } });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const api = path.join(t.worktree(102), 'packages/api');
    startSwapper(api, 'x', outside);
    startSwapper(path.join(api, 'src'), 'routes', path.join(outside, 'routes'));
    await waitFor('the swappers', () => swappers.every((s) => alive(s.pid)));

    for (let round = 0; round < 3; round++) {
      const { exitCode, stderr, report } = await t.harvest('--revert-out-of-fence', '--run', t.runId(102));
      // 0: reverted, and clean once reverted; 1: the run failed (its line says why); 4: it needs a
      // person. Never an internal error.
      expect([0, 1, 4], stderr).toContain(exitCode);
      expect(stderr).not.toMatch(/internal error/);
      expect(report.runs).toHaveLength(1);
      const run = report.runs[0]!;
      expect(['clean', 'failed', 'needs_person']).toContain(run.result);
      if (run.result === 'failed') expect(run.why!.split('\n')).toHaveLength(1);
    }
    killAll(swappers.map((s) => s.pid));
    await waitFor('the swappers to stop', () => swappers.every((s) => !alive(s.pid)));

    expect(snapshot(outside)).toEqual(before);
    // Nothing of the outside folder was copied into a backup: a link is kept as a link.
    const runs = path.join(t.root, '.dispatch-runs');
    for (const backup of readdirSync(runs).filter((n) => n.startsWith('reverted-102-'))) {
      for (const [file, content] of Object.entries(snapshot(path.join(runs, backup)))) expect(content, `${backup}/${file}`).not.toMatch(/^precious/);
    }
  }, 180_000);

  it('reverts and commits nothing while a process of the run is still running', async () => {
    t = await hostileSetup({ fake: { 101: { edit: { 'packages/api/src/routes/checkout.ts': 'export const fixed = 1;\n', 'package.json': '{"name":"changed"}\n' } } } });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const id = t.runId(101);
    // A process marked with the run's id, as every process of the run is, outliving it.
    const lingering = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore', detached: true, env: { ...process.env, WAVES_RUN: id } });
    swappers.push(lingering);
    await waitFor('the lingering process', () => alive(lingering.pid));
    const { exitCode, report } = await t.harvest('--revert-out-of-fence', '--commit', '--run', id);
    expect(exitCode).toBe(4);
    const w = report.runs[0]!.witness!;
    expect(w.reasons.join(' ')).toContain(`not reverted: a process of the run is still running (pid ${lingering.pid})`);
    expect(w.reverted).toEqual([]);
    expect(w.commit).toBeNull();
    expect(readFileSync(path.join(t.worktree(101), 'package.json'), 'utf8')).toBe('{"name":"changed"}\n');
  }, 120_000);
});
