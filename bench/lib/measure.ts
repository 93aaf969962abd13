/**
 * Runs a command as a child process and measures its whole-process wall time and peak resident
 * memory with GNU time (`/usr/bin/time -f '%e %M'`), so every tool pays for its own start-up,
 * module loading and file reading alike.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';

export interface Measurement {
  seconds: number;
  peakMiB: number | null;
  stdout: string;
}

const GNU_TIME = '/usr/bin/time';

/** `stdoutFile`: the command's stdout goes to that file instead of memory (then `stdout` is empty). */
export function measure(command: string, args: string[], cwd: string, env: Record<string, string> = {}, stdoutFile?: string): Measurement {
  const useTime = existsSync(GNU_TIME);
  const fd = stdoutFile === undefined ? undefined : openSync(stdoutFile, 'w');
  const options = { cwd, encoding: 'utf8' as const, maxBuffer: 1 << 30, env: { ...process.env, ...env }, ...(fd === undefined ? {} : { stdio: ['ignore', fd, 'pipe'] as ['ignore', number, 'pipe'] }) };
  const started = performance.now();
  const result = useTime ? spawnSync(GNU_TIME, ['-f', 'WAVES_TIME %e %M', command, ...args], options) : spawnSync(command, args, options);
  const wall = (performance.now() - started) / 1000;
  if (fd !== undefined) closeSync(fd);
  if (result.status !== 0) {
    const tail = `${result.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status}:\n${tail}`);
  }
  const line = `${result.stderr ?? ''}`.split('\n').find((l) => l.startsWith('WAVES_TIME '));
  if (!line) return { seconds: wall, peakMiB: null, stdout: result.stdout ?? '' };
  const [, seconds, kb] = line.split(' ');
  return { seconds: Number(seconds), peakMiB: Number(kb) / 1024, stdout: result.stdout ?? '' };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
