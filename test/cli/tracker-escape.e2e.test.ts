/**
 * The descendant tracker's documented limit, as redteam-2 #15 drove through it: a small C program
 * that forks, calls setsid, resets its oom_score_adj, closes every descriptor, forks again and
 * execs with an empty environment leaves daemons nothing ties to the run while it runs. At the
 * run's end the supervisor still finds those that sit in the run's tree (their cwd there) and
 * stops them, naming them in the record; one that left the tree is out of reach (the README says
 * so: a container is the hard boundary).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, TEST_STATE_DIR } from '../helpers/example-repo.js';
import { alive } from '../helpers/processes.js';
import { useRunRepo } from '../helpers/run-repo.js';

const ESCAPE_C = `
#include <unistd.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
  pid_t p = fork();
  if (p < 0) return 1;
  if (p > 0) { waitpid(p, NULL, 0); return 0; }
  setsid();
  int fd = open("/proc/self/oom_score_adj", O_WRONLY); if (fd >= 0) { write(fd, "0", 1); close(fd); }
  for (int i = 0; i < 256; i++) close(i);
  open("/dev/null", O_RDONLY); open("/dev/null", O_WRONLY); open("/dev/null", O_WRONLY);
  pid_t q = fork();
  if (q != 0) _exit(0);
  char *envp[] = { "PATH=/usr/bin:/bin", NULL };
  execve(argv[1], argv + 1, envp);
  _exit(127);
}
`;

let escape: string | null = null;
const pidsToKill: number[] = [];
const shared = useRunRepo({
  dispose: () => {
    for (const pid of pidsToKill) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  },
});

beforeAll(() => {
  try {
    writeFileSync(path.join(shared.side, 'escape.c'), ESCAPE_C);
    execFileSync('cc', ['-o', path.join(shared.side, 'escape'), path.join(shared.side, 'escape.c')], { stdio: 'ignore' });
    escape = path.join(shared.side, 'escape');
  } catch {
    escape = null; // no C compiler here
  }
}, 60_000);

/** The pids of the processes running `sleep <seconds>` (the daemons' mark). */
function sleepers(seconds: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.endsWith('sleep') && argv[1] === seconds) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

describe.runIf(process.platform === 'linux')('daemons that escaped the tracker', () => {
  it('are stopped at the run end when they sit in its work tree, and named in its record', async (context) => {
    if (escape === null) context.skip();
    const agent = path.join(shared.side, 'agent.sh');
    // Ten daemons left in the shared work tree (the agent's cwd), one that moved to / first.
    writeFileSync(agent, `for i in 1 2 3 4 5 6 7 8 9 10; do "${escape}" /bin/sleep 3597; done\ncd / && "${escape}" /bin/sleep 3598\n`);
    writeFileSync(path.join(shared.root, 'waves.config.json'), JSON.stringify({ agents: { evil: { command: ['sh', agent, '{number}'] } } }));
    const result = await execa(process.execPath, [BIN, 'dispatch', '--from-issues', 'backlog.json', '--agent', 'evil', '--wave-size', '1'], {
      cwd: shared.root,
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
      env: { WAVES_STATE_DIR: TEST_STATE_DIR, WAVES_KILL_GRACE_MS: '300' },
    });
    const away = sleepers('3598');
    pidsToKill.push(...away);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(sleepers('3597').filter(alive)).toEqual([]);
    const runs = path.join(shared.root, '.dispatch-runs');
    const name = readdirSync(runs).find((n) => /^resolve-\d+-\w+\.json$/.test(n))!;
    const record = JSON.parse(readFileSync(path.join(runs, name), 'utf8')) as { status: string; strays?: { pid: number; command: string; where: string }[]; log: string };
    expect(record.status).toBe('succeeded');
    // Those the tracker did not catch while the agent ran (all, on an idle machine) are named.
    const strays = record.strays ?? [];
    for (const stray of strays) {
      expect(stray.command).toBe('/bin/sleep 3597');
      expect(stray.where).toBe(`cwd ${execFileSync('realpath', [shared.root], { encoding: 'utf8' }).trim()}`);
    }
    if (strays.length > 0) expect(readFileSync(record.log, 'utf8')).toContain(`[waves] stopped ${strays.length} process(es) that escaped the run's tracking but sat in its tree`);
    // The one that left the tree and holds nothing in it is the documented limit: the tracker catches
    // it only when it sees it before it leaves (on a loaded machine it may), so nothing is asserted of it.
  }, 90_000);

  it('are all gone, the one that left the tree too, when the agent runs in a pid namespace of its own (unshare, as the README shows)', async (context) => {
    if (escape === null) context.skip();
    try {
      execFileSync('unshare', ['--user', '--map-root-user', '--pid', '--fork', '--kill-child', '--mount-proc', 'true'], { stdio: 'ignore' });
    } catch {
      context.skip(); // no unprivileged user namespaces here
    }
    const agent = path.join(shared.side, 'agent-ns.sh');
    writeFileSync(agent, `"${escape}" /bin/sleep 3595\ncd / && "${escape}" /bin/sleep 3596\n`);
    writeFileSync(
      path.join(shared.root, 'waves.config.json'),
      JSON.stringify({ agents: { boxed: { command: ['unshare', '--user', '--map-root-user', '--pid', '--fork', '--kill-child', '--mount-proc', 'sh', agent, '{number}'] } } }),
    );
    const result = await execa(process.execPath, [BIN, 'dispatch', '--from-issues', 'backlog.json', '--agent', 'boxed', '--wave-size', '1'], {
      cwd: shared.root,
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
      env: { WAVES_STATE_DIR: TEST_STATE_DIR, WAVES_KILL_GRACE_MS: '300' },
    });
    pidsToKill.push(...sleepers('3595'), ...sleepers('3596'));
    expect(result.exitCode, result.stderr).toBe(0);
    expect([...sleepers('3595'), ...sleepers('3596')].filter(alive)).toEqual([]);
  }, 90_000);
});
