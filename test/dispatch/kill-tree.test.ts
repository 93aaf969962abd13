/**
 * stopProcessTree and its guard, on real processes: a group whose member ignores SIGTERM is gone
 * after the grace; a process that left the group with setsid is found by its marker; a process
 * group read from a record is signalled only when it is the run's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { groupRefusal, markerEntry, stopProcessTree } from '@waves/dispatch';
import { alive, killAll, waitFor } from '../helpers/processes.js';

const started: number[] = [];
afterEach(() => {
  killAll(started);
  started.length = 0;
});

const onLinux = process.platform === 'linux';

/**
 * A process ignoring SIGTERM, leading its own group (or not), optionally marked; it prints its
 * pid and that of a grandchild of the same kind once both are ready.
 */
async function tree(options: { marker?: string; grandchildSession?: boolean } = {}): Promise<{ leader: ChildProcess; grandchild: number }> {
  const source = `
    process.on('SIGTERM', () => undefined);
    const child = require('node:child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => undefined); console.log('ready'); setInterval(() => undefined, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'], detached: ${Boolean(options.grandchildSession)} });
    child.stdout.once('data', () => { console.log(child.pid); child.stdout.destroy(); child.unref(); });
    setInterval(() => undefined, 1000);`;
  const env = { ...process.env, ...(options.marker ? { WAVES_RUN: options.marker } : {}) };
  const leader = spawn(process.execPath, ['-e', source], { detached: true, stdio: ['ignore', 'pipe', 'ignore'], env });
  started.push(leader.pid!);
  const grandchild = await new Promise<number>((resolve) => leader.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
  started.push(grandchild);
  return { leader, grandchild };
}

describe('stopProcessTree', () => {
  it('stops a whole process group that ignores SIGTERM: SIGKILL after the grace, and checks it is gone', async () => {
    const { leader, grandchild } = await tree();
    const result = await stopProcessTree({ pgid: leader.pid!, runId: null, trusted: true }, { graceMs: 200 });
    expect(result).toEqual({ refused: null, survivors: [] });
    await waitFor('the leader to be reaped', () => leader.exitCode !== null || leader.signalCode !== null);
    expect(leader.signalCode).toBe('SIGKILL');
    expect(alive(grandchild)).toBe(false);
  });

  it.runIf(onLinux)('finds a process that left the group with setsid by the run marker in its environment', async () => {
    const { leader, grandchild } = await tree({ marker: 'resolve-1-x', grandchildSession: true });
    const result = await stopProcessTree({ pgid: leader.pid!, runId: 'resolve-1-x', trusted: true }, { graceMs: 200 });
    expect(result.survivors).toEqual([]);
    expect(alive(grandchild)).toBe(false);
  });

  it.runIf(onLinux)('refuses a recorded process group whose members do not carry the run marker, and stops only the marked processes', async () => {
    const stranger = await tree();
    const ours = await tree({ marker: 'resolve-2-x', grandchildSession: true });
    const result = await stopProcessTree({ pgid: stranger.leader.pid!, runId: 'resolve-2-x', trusted: false }, { graceMs: 200 });
    expect(result.refused).toMatch(new RegExp(`does not carry ${markerEntry('resolve-2-x')}`));
    expect(alive(stranger.leader.pid)).toBe(true);
    expect(alive(stranger.grandchild)).toBe(true);
    expect(alive(ours.grandchild)).toBe(false);
  });
});

describe('groupRefusal', () => {
  it('never lets pid 0, 1, a negative or a non-integer pid through', () => {
    for (const pid of [0, 1, -1, -4242, Number.NaN, 1.5]) expect(groupRefusal(pid, 'resolve-1-x'), String(pid)).toMatch(/not a process group waves started/);
  });

  it("never lets waves' own process or process group through", () => {
    expect(groupRefusal(process.pid, 'resolve-1-x')).toMatch(/waves itself|does not carry/);
    if (onLinux) {
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const ownGroup = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      expect(groupRefusal(ownGroup, 'resolve-1-x')).toBe('it is the process group of waves itself');
    }
  });

  it.runIf(onLinux)('lets a group through only when every live member carries the marker', async () => {
    const marked = await tree({ marker: 'resolve-3-x' });
    expect(groupRefusal(marked.leader.pid!, 'resolve-3-x')).toBeNull();
    expect(groupRefusal(marked.leader.pid!, 'resolve-4-x')).toMatch(/does not carry WAVES_RUN=resolve-4-x/);
    const unmarked = await tree();
    expect(groupRefusal(unmarked.leader.pid!, 'resolve-3-x')).toMatch(/does not carry/);
  });
});
