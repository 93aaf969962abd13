/**
 * How every git command of waves runs (with SAFE_GIT_CONFIG in its arguments, put there by the
 * caller): in a process group of its own, with a deadline, and with lazy fetching off.
 *
 * - A deadline (`WAVES_GIT_TIMEOUT` seconds, 5 minutes by default: a status of a huge repository
 *   on a slow disk takes long, a hang takes forever). git opens with a plain open() the files an
 *   agent can replace — a `.gitignore` or `.gitattributes`, `info/exclude`, a file the config
 *   includes —, and a FIFO there blocks it for good (red team 3, finding 9). At the deadline the
 *   whole group is killed (git and what it started) and the command stops with one line naming
 *   the git command, the directory and the likely cause. The common cases are refused before any
 *   git runs (git-inputs.ts); this is what is left for the others.
 * - `GIT_NO_LAZY_FETCH=1`: git fetches no object a partial clone lacks (SAFE_GIT_CONFIG turns
 *   every protocol off as well).
 * - Groups still running when waves exits (an interrupt) are killed with it.
 */
import { execa, type Options, type Result } from 'execa';
import { ConfigError } from '../errors.js';

/** A git command of waves that did not finish in time. Exit code 2. */
export class GitTimeoutError extends ConfigError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'GitTimeoutError';
  }
}

const DEFAULT_TIMEOUT_SECONDS = 300;

/** The deadline of one git command, in milliseconds (`WAVES_GIT_TIMEOUT`, in seconds). */
export function gitTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.WAVES_GIT_TIMEOUT;
  if (text === undefined || text.trim() === '') return DEFAULT_TIMEOUT_SECONDS * 1000;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 7 * 24 * 3600) {
    throw new ConfigError(`WAVES_GIT_TIMEOUT=${JSON.stringify(text.slice(0, 40))} is not a number of seconds (more than 0, at most a week)`);
  }
  return Math.round(seconds * 1000);
}

/** The git command's name in an argument list (`ls-files`), past the options and `-c key=value`. */
export function gitCommandName(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-c' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return '';
}

const running = new Set<number>();
let exitHook = false;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/**
 * `execaGit(args, options)`, run as every git of waves is: own process group, deadline,
 * no lazy fetch. A command past its deadline throws a GitTimeoutError, even with `reject: false`.
 */
export async function execaGit<const O extends Options = Options>(args: readonly string[], options?: O): Promise<Result<O>> {
  const ms = gitTimeoutMs();
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const pid of running) killGroup(pid);
    });
  }
  const subprocess = execa('git', args, { ...options, env: { ...options?.env, GIT_NO_LAZY_FETCH: '1' }, detached: true } as Options) as unknown as Promise<Result<O>> & { pid?: number };
  const pid = subprocess.pid;
  if (pid !== undefined) running.add(pid);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(pid);
  }, ms);
  const late = () => {
    const cwd = options?.cwd === undefined ? process.cwd() : String(options.cwd);
    return new GitTimeoutError(
      `git ${gitCommandName(args)} in ${cwd} did not finish in ${ms / 1000} s and was stopped: a file git reads there (a .gitignore, .gitattributes, info/exclude, a file the git config includes) may be a FIFO or a device (WAVES_GIT_TIMEOUT sets the limit, in seconds)`,
    );
  };
  try {
    const result = await subprocess;
    if (timedOut) throw late();
    return result;
  } catch (error) {
    if (timedOut) throw late();
    throw error;
  } finally {
    clearTimeout(timer);
    if (pid !== undefined) running.delete(pid);
  }
}
