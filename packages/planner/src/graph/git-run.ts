/**
 * How every git command of waves runs (with SAFE_GIT_CONFIG in its arguments, put there by the
 * caller): with a deadline, and with lazy fetching off. It stays in waves' process group, so that
 * a Ctrl-C at the terminal reaches it as it reaches waves.
 *
 * - A deadline (`WAVES_GIT_TIMEOUT` seconds, 5 minutes by default: a status of a huge repository
 *   on a slow disk takes long, a hang takes forever). git opens with a plain open() the files an
 *   agent can replace — a `.gitignore` or `.gitattributes`, `info/exclude`, a file the config
 *   includes —, and a FIFO there blocks it for good (red team 3, finding 9). At the deadline git and
 *   every process it started (found through /proc) are killed, and the command stops with one line naming
 *   the git command, the directory and the likely cause. The common cases are refused before any
 *   git runs (git-inputs.ts); this is what is left for the others.
 * - `GIT_NO_LAZY_FETCH=1`: git fetches no object a partial clone lacks (SAFE_GIT_CONFIG turns
 *   every protocol off as well).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { execa, type Options } from 'execa';
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
export function gitTimeoutMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
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

/** The processes under `pid` (Linux: /proc). */
function descendants(pid: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const name of names) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

/** Kills git and every process it started (all found before any is killed: an orphan loses its parent). */
function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const target of [pid, ...descendants(pid)]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** The options of a git command of waves (those of execa that waves uses). */
export interface GitRunOptions {
  cwd?: string;
  /** Added to waves' environment. */
  env?: Readonly<Record<string, string | undefined>>;
  reject?: boolean;
  stdin?: 'ignore';
  input?: string;
  encoding?: 'utf8' | 'buffer';
  stripFinalNewline?: boolean;
  maxBuffer?: number;
  /** This command's deadline in milliseconds, instead of `WAVES_GIT_TIMEOUT` (a lease fetch or push must answer sooner). */
  timeoutMs?: number;
}

/** What a git command of waves gave (execa's result, the fields waves reads). */
export interface GitRunResult<Output = string> {
  stdout: Output;
  stderr: Output;
  /** Undefined when git did not start or was killed. */
  exitCode?: number;
  failed: boolean;
  code?: string;
  shortMessage?: string;
  message?: string;
}

/**
 * `execa('git', args, options)`, run as every git of waves is: a deadline, no lazy fetch. A
 * command past its deadline throws a GitTimeoutError, even with `reject: false`.
 */
export async function execaGit(args: readonly string[], options: GitRunOptions & { encoding: 'buffer' }): Promise<GitRunResult<Uint8Array>>;
export async function execaGit(args: readonly string[], options?: GitRunOptions & { encoding?: 'utf8' }): Promise<GitRunResult>;
export async function execaGit(args: readonly string[], options?: GitRunOptions): Promise<GitRunResult<string | Uint8Array>> {
  const { timeoutMs, ...execaOptions } = options ?? {};
  const ms = timeoutMs ?? gitTimeoutMs();
  // No grafts (`info/grafts`, deprecated, but git still obeys it and core.useReplaceRefs does not
  // turn it off): a graft an agent wrote would rewrite the history waves reads (red team H2). A
  // path that cannot exist: an empty file (/dev/null) makes git print its deprecation hint.
  const subprocess = execa('git', args, { ...execaOptions, env: { ...options?.env, GIT_NO_LAZY_FETCH: '1', GIT_GRAFT_FILE: '/dev/null/no-grafts' } } as Options) as unknown as Promise<GitRunResult<string | Uint8Array>> & { pid?: number };
  const pid = subprocess.pid;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(pid);
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
  }
}
