/**
 * The last sweep's test of a stray (stray-processes.ts) against the person's own servers: a
 * terminal multiplexer started in the shared work tree's root while a run goes detaches from its
 * terminal and loses its parent, as a daemon the agent left does — but it is the person's, and
 * stopping it would end every session in it (red team G5).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findStrays, ticksAt } from '@waves/dispatch';

const started: number[] = [];
let dir: string | null = null;
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** `name` (a copy of sleep) started in `cwd` with an empty environment, detached and orphaned; its pid. */
function orphan(cwd: string, name: string): number {
  copyFileSync('/bin/sleep', path.join(cwd, name));
  const pid = Number(execFileSync('sh', ['-c', `setsid ./${name} 60 </dev/null >/dev/null 2>&1 & echo $!`], { cwd, env: {}, encoding: 'utf8' }).trim());
  started.push(pid);
  return pid;
}

describe.runIf(process.platform === 'linux')('the last sweep', () => {
  it("takes an unmarked orphan sitting in the run's root for the run's, but never a terminal multiplexer the person started there", async () => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'waves-strays-')));
    const since = ticksAt(Date.now())!;
    const daemon = orphan(dir, 'daemon');
    const tmux = orphan(dir, 'tmux');
    const screen = orphan(dir, 'screen');
    let found: number[] = [];
    for (let i = 0; i < 50 && !found.includes(daemon); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      found = findStrays({ since, marker: 'WAVES_RUN=resolve-1-x', trees: [], cwdAt: [dir], exclude: new Set() }).map((s) => s.pid);
    }
    expect(found).toContain(daemon);
    expect(found).not.toContain(tmux);
    expect(found).not.toContain(screen);
  });
});
