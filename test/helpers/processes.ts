import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether a process runs. A zombie does not: nothing reaps an orphan in some containers (their
 * init leaves zombies), and a zombie runs no code and holds nothing but its pid.
 */
export function alive(pid: number | null | undefined): boolean {
  if (!pid || pid <= 1) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return process.platform !== 'linux';
  }
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Kills what a test started, group and process, whatever state the test left it in. */
export function killAll(pids: Iterable<number | null | undefined>): void {
  for (const pid of pids) {
    if (!pid || pid <= 1 || pid === process.pid) continue;
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}

/** The supervisor and agent pids of every run record under a root, for a test's cleanup. */
export function pidsOfRuns(root: string): number[] {
  const dir = path.join(root, '.dispatch-runs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /^resolve-.*\.json$/.test(n))
    .flatMap((n) => {
      try {
        const record = JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as { pid?: number | null; supervisorPid?: number | null };
        return [record.supervisorPid ?? 0, record.pid ?? 0].filter((pid) => pid > 1);
      } catch {
        return [];
      }
    });
}
