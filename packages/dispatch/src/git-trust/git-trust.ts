/**
 * The git config a person trusts, and the check every command of waves makes before it runs git
 * in a repository: an agent (or anyone who can write the shared git dir, a worktree's config or
 * a file the config includes) can name a program there — a filter on every file, a signing
 * program — that git would run as the person, outside the agent's sandbox, from waves' own
 * listing, status, diff, add, commit or `git worktree add`. So the settings that name programs
 * (see program-config.ts) in effect in every work tree of the repository are compared with a
 * baseline the person trusts; one added or changed stops the command before any git runs.
 *
 * The baseline: `git-trust/<hash>.json` in waves' state directory (outside the repository, 0600),
 * one per repository (the real path of its common git dir: its worktrees share it). Taken
 * silently the first time waves meets the repository — before any agent of waves ran there —
 * and afterwards only by `waves trust`, which the person runs after looking at what changed.
 * Reading git's config runs no program.
 *
 * NOTE: like the seals, this defends against an agent confined to its work tree. An agent with
 * no sandbox runs as the person and can rewrite the baseline too.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { lstat, mkdir, readdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, execaGit, gitInputProblem, readRegularFile, SAFE_GIT_CONFIG } from '@waves/planner';
import { sealedNames, stateDir } from '../runs/record-seal.js';
import { RUNS_DIR } from '../runs/run-record.js';
import { commonDirOf, worktreeFilesProblem } from '../runs/worktree-check.js';
import { configKeyOf, parseConfigList, programChanges, programConfig, signingOptions, trustedConfigOf, type ProgramChange, type ProgramConfig, type TrustedConfig } from './program-config.js';


/** A watched git setting that the person has not trusted. Exit code 2, nothing run. */
export class GitTrustError extends ConfigError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'GitTrustError';
  }
}

/** What the check found in effect: the settings of the repository's main work tree. */
export interface GitTrust {
  /** Options for a commit of waves: signing on, with the trusted program, when the trusted config signs; else none. */
  commitSigning: string[];
}

/** The config in effect in one work tree of the repository. */
export interface WorkTreeConfig {
  dir: string;
  config: ProgramConfig;
}

/** What `waves trust` shows and records. */
export interface TrustReview {
  baselineFile: string;
  /** Whether a baseline was recorded before. */
  hadBaseline: boolean;
  /** What differs from the baseline (every watched setting when there is none), per work tree. */
  changes: (ProgramChange & { dir: string })[];
  trusted: TrustedConfig;
}

interface Baseline {
  v: 1;
  gitDir: string;
  trustedAt: string;
  config: TrustedConfig;
}

const MAX_BASELINE_BYTES = 4 * 1024 * 1024;

const gitIn = (cwd: string, args: readonly string[]) => execaGit([...SAFE_GIT_CONFIG, ...args], { cwd, reject: false, stdin: 'ignore', stripFinalNewline: false });
const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';

const isInside = (dir: string, file: string) => {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** The work trees of the repository that exist: `root` first, then every registered one. */
async function workTrees(root: string): Promise<string[]> {
  const dirs = [root];
  const result = await gitIn(root, ['worktree', 'list', '--porcelain', '-z']);
  if (result.exitCode === 0) {
    for (const field of result.stdout.split('\0')) {
      if (!field.startsWith('worktree ')) continue;
      const dir = field.slice('worktree '.length);
      const info = await lstat(dir).catch(() => null);
      if (info?.isDirectory() && !dirs.some((d) => path.resolve(d) === path.resolve(dir))) dirs.push(dir);
    }
  }
  return dirs;
}

/** The watched settings in effect in `dir` (origins as absolute paths); null when git cannot read a config there. */
async function readProgramConfig(dir: string): Promise<{ config: ProgramConfig } | { error: string }> {
  const result = await gitIn(dir, ['config', '--list', '--show-scope', '--show-origin', '-z']);
  if (result.exitCode !== 0) return { error: firstLine(result.stderr || result.stdout) };
  const config = programConfig(parseConfigList(result.stdout));
  for (const setting of config.values()) {
    const file = setting.origin.startsWith('file:') ? setting.origin.slice('file:'.length) : null;
    if (file !== null && !path.isAbsolute(file)) setting.origin = `file:${path.resolve(dir, file)}`;
  }
  return { config };
}

/** The watched settings of every work tree of the repository. A work tree git cannot read is skipped (no git runs there either); the root is not. */
async function readAllConfigs(root: string, gitDir: string): Promise<WorkTreeConfig[]> {
  const configs: WorkTreeConfig[] = [];
  for (const dir of await workTrees(root)) {
    // A worktree whose .git no longer leads to this repository is not read (its config is
    // another repository's): waves runs no git there — dispatch skips it, harvest needs a person.
    // Its files say so (git worktree list named it already).
    if (dir !== root && (await worktreeFilesProblem(root, dir, gitDir)) !== null) continue;
    const read = await readProgramConfig(dir);
    if ('config' in read) configs.push({ dir, config: read.config });
    else if (dir === root) throw new GitTrustError(`git cannot read its config in ${root}: ${read.error}`);
  }
  return configs;
}

async function baselineFileOf(root: string, gitDir: string): Promise<string> {
  const state = stateDir();
  const realState = await realpath(state).catch(() => state);
  const realRoot = await realpath(root).catch(() => root);
  // A baseline inside the repository would be as writable as the config it guards.
  if (isInside(realRoot, realState) || isInside(path.dirname(gitDir), realState)) {
    throw new ConfigError(`the waves state directory ${state} lies inside the repository ${realRoot}: the trusted git config must be kept outside it (set WAVES_STATE_DIR)`);
  }
  const key = createHash('sha256').update(gitDir).digest('hex').slice(0, 32);
  return path.join(state, 'git-trust', `${key}.json`);
}

/**
 * The folder of the baselines, when it is one: a link there is never followed (the baseline would
 * be read from, or written to, wherever it points), a file there is named. Made when `create`.
 */
async function baselineFolder(dir: string, create: boolean): Promise<boolean> {
  let info = await lstat(dir).catch(() => null);
  if (info === null && create) {
    await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      throw new GitTrustError(`the folder of the trusted git config ${dir} cannot be made (${error.code ?? error.message}): move away what stands in its way`);
    });
    info = await lstat(dir).catch(() => null);
  }
  if (info === null) return false;
  if (!info.isDirectory()) {
    const kind = info.isSymbolicLink() ? 'a symbolic link (never followed)' : info.isFile() ? 'a file' : 'not a folder';
    throw new GitTrustError(`the folder of the trusted git config ${dir} is ${kind}: waves keeps the git config you trust there; move it away`);
  }
  return true;
}

async function readBaseline(file: string): Promise<Baseline | null> {
  if (!(await baselineFolder(path.dirname(file), false))) return null;
  const info = await lstat(file).catch(() => null);
  if (info === null) return null;
  const broken = (why: string) => new GitTrustError(`the trusted git config ${file} ${why}: waves trust shows the git config that names programs and records it again`);
  const read = await readRegularFile(file, { maxBytes: MAX_BASELINE_BYTES });
  if (!read.ok) throw broken(read.reason);
  try {
    const parsed = JSON.parse(read.text) as Baseline;
    const valid =
      parsed?.v === 1 &&
      typeof parsed.config === 'object' &&
      parsed.config !== null &&
      Object.values(parsed.config).every((values) => Array.isArray(values) && values.every((v) => v === null || typeof v === 'string'));
    if (!valid) throw new Error('invalid');
    return { ...parsed, config: Object.assign(Object.create(null) as TrustedConfig, parsed.config) };
  } catch {
    throw broken('is not one waves wrote');
  }
}

/** Writes the baseline atomically (a new file renamed over it, never through a link), readable by its owner alone. */
async function writeBaseline(file: string, baseline: Baseline): Promise<void> {
  await baselineFolder(path.dirname(file), true);
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(baseline, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Whether an agent of waves may have run in the repository already: a run record or a seal of one (records an agent deleted keep their seals). */
async function agentsHaveRun(root: string, gitDir: string): Promise<boolean> {
  const mainTree = path.basename(gitDir) === '.git' ? path.dirname(gitDir) : null;
  for (const dir of new Set([root, ...(mainTree ? [mainTree] : [])])) {
    const runsDir = path.join(dir, RUNS_DIR);
    const names = await readdir(runsDir).catch(() => [] as string[]);
    if (names.some((n) => /^resolve-\d+-\w+\.json$/.test(n))) return true;
    if ((await sealedNames(runsDir).catch(() => [])).length > 0) return true;
  }
  return false;
}

const shown = (value: string | null) => (value === null ? '(no value)' : JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value));

/** Where a setting was read, for a person: a file inside the root relative to it. */
export function originOf(origin: string, root: string): string {
  if (!origin.startsWith('file:')) return origin;
  const file = origin.slice('file:'.length);
  return isInside(root, file) ? path.relative(root, file) || file : file;
}

/**
 * Compares the git config that names programs, in every work tree of the repository, with the
 * baseline the person trusts; throws a GitTrustError naming the first setting added or changed.
 * Without a baseline: records one when no agent of waves has run in the repository yet, else
 * refuses (the config may already hold what an agent planted); `record: false` (a dry run)
 * checks without recording. Outside a git repository: nothing
 * to check.
 */
export async function checkGitTrust(root: string, now: Date = new Date(), options: { record?: boolean } = {}): Promise<GitTrust> {
  await refuseBlockingInputs(root);
  const gitDir = await commonDirOf(root);
  if (gitDir === null) return { commitSigning: [] };
  const file = await baselineFileOf(root, gitDir);
  const configs = await readAllConfigs(root, gitDir);
  const mainConfig = configs[0]!.config;
  const baseline = await readBaseline(file);
  if (baseline === null) {
    if (await agentsHaveRun(root, gitDir)) {
      throw new GitTrustError(
        `no trusted git config is recorded for this repository, and agents of waves have run in it: its git config may name programs an agent planted. waves trust shows them and records them once you have looked`,
      );
    }
    // What the person's own config (system, global) names is theirs; what the repository's own
    // config names (.git/config, a worktree's, what they include) came with the repository — a
    // tarball, a copied folder — as much as from the person: git would run it from waves' very
    // first listing, so the person looks first.
    // A file of the repository's own is so whatever scope git gives it: the person's global config
    // may include a tracked file of the repository (a team's shared .gitconfig), which git
    // reports as global.
    const places = await repositoryPlaces(root, gitDir, configs.map((c) => c.dir));
    const own = configs.flatMap(({ config }) => [...config].filter(([, s]) => s.scope === 'local' || s.scope === 'worktree' || inRepository(s.origin, places)));
    if (own.length > 0) {
      const [key, setting] = own[0]!;
      throw new GitTrustError(
        `this repository's own git config names a program: ${configKeyOf(key)}=${shown(setting.value)} in ${originOf(setting.origin, root)}${own.length > 1 ? ` (and ${own.length - 1} more)` : ''}; ` +
          `waves runs no git command in a repository it meets for the first time until you have looked: waves trust shows the settings and records them`,
      );
    }
    // A dry run writes nothing: the dispatch that starts agents takes the baseline.
    if (options.record !== false) await writeBaseline(file, { v: 1, gitDir, trustedAt: now.toISOString(), config: trustedConfigOf(configs.map((c) => c.config)) });
    return { commitSigning: signingOptions(mainConfig) };
  }
  for (const { config } of configs) {
    const changes = programChanges(baseline.config, config);
    if (changes.length === 0) continue;
    const [first] = changes;
    const more = changes.length > 1 ? ` (and ${changes.length - 1} more)` : '';
    throw new GitTrustError(
      `git config names a program you have not trusted: ${first!.key}=${shown(first!.value)} in ${originOf(first!.origin, root)}${more}; ` +
        `waves runs no git command until it is removed (git config --unset), or trusted with waves trust`,
    );
  }
  return { commitSigning: signingOptions(mainConfig) };
}

/** The folders whose files are the repository's own: its work trees and its git dir, as given and as resolved. */
async function repositoryPlaces(root: string, gitDir: string, dirs: readonly string[]): Promise<string[]> {
  const given = [root, gitDir, ...dirs];
  const resolved = await Promise.all(given.map((dir) => realpath(dir).catch(() => dir)));
  return [...new Set([...given, ...resolved])];
}

/** Whether a setting's origin (`file:<path>`) is a file inside one of `places` (a link to one is followed). */
function inRepository(origin: string, places: readonly string[]): boolean {
  if (!origin.startsWith('file:')) return false;
  const file = path.resolve(origin.slice('file:'.length));
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    // Gone since git read it: judged by its name.
  }
  return places.some((dir) => isInside(dir, file) || isInside(dir, real));
}

/** A FIFO or a device where git opens a file (an ignore or attributes file at the root, the git dir's, an include): one line, before any git blocks on it. */
async function refuseBlockingInputs(root: string): Promise<void> {
  const problem = await gitInputProblem(root);
  if (problem !== null) throw new GitTrustError(problem);
}

/** What `waves trust` would record, and how it differs from the baseline. Writes nothing. */
export async function reviewGitTrust(root: string): Promise<TrustReview | null> {
  await refuseBlockingInputs(root);
  const gitDir = await commonDirOf(root);
  if (gitDir === null) return null;
  const baselineFile = await baselineFileOf(root, gitDir);
  const configs = await readAllConfigs(root, gitDir);
  const baseline = await readBaseline(baselineFile).catch(() => null);
  const changes = configs.flatMap(({ dir, config }) => programChanges(baseline?.config ?? {}, config).map((change) => ({ ...change, dir })));
  // One line per setting, even when several work trees share it (the common config).
  const unique = changes.filter((c, i) => changes.findIndex((d) => d.key === c.key && d.value === c.value && d.origin === c.origin) === i);
  return { baselineFile, hadBaseline: baseline !== null, changes: unique, trusted: trustedConfigOf(configs.map((c) => c.config)) };
}

/** Records the config in effect now as the one the person trusts. */
export async function recordGitTrust(root: string, review: TrustReview, now: Date = new Date()): Promise<void> {
  const gitDir = await commonDirOf(root);
  if (gitDir === null) return;
  await writeBaseline(review.baselineFile, { v: 1, gitDir, trustedAt: now.toISOString(), config: review.trusted });
}
