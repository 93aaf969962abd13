/**
 * The live fence's thin client: `waves fence check` and the agents' hooks ask the run's supervisor,
 * which holds the run's fence, its leases and its record, over a unix socket in waves' state
 * directory (one per run, readable by its owner alone). The supervisor decides, leases and records;
 * the client only carries the question and the answer, so it starts fast (Node built-ins only:
 * no planner, no graph) and an agent confined to its work tree (codex's workspace-write) can still
 * widen its fence — the journal and the seals it could not write are written by the supervisor.
 *
 * Protocol: one JSON line each way. Request `{"v":1,"paths":[…],"by":"claude","key":"…"}`; answer
 * `{"v":1,"results":[{path,status,…}]}` or `{"v":1,"error":"…"}`. `key` is the run's secret, given
 * to its agent alone as `WAVES_FENCE_TICKET`: a question without it (another run's agent) is not
 * answered. Processes of one user can read each other's environment (/proc/<pid>/environ): this
 * guards against accidents and naive agents, it is no sandbox.
 *
 * Hook formats:
 * - Claude Code `PreToolUse` (https://code.claude.com/docs/en/hooks, "PreToolUse" input and
 *   "PreToolUse decision control"): stdin is `{session_id, transcript_path, cwd, permission_mode,
 *   hook_event_name: "PreToolUse", tool_name, tool_input, tool_use_id}`; `Write`, `Edit` and
 *   `MultiEdit` name their file in `tool_input.file_path`, `NotebookEdit` in
 *   `tool_input.notebook_path` (absolute paths). A refusal is exit 0 with
 *   `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",
 *   "permissionDecisionReason":"…"}}` (the reason is shown to Claude); an allowed edit prints
 *   nothing, so the session's own permission mode still decides (waves never widens it).
 * - opencode `tool.execute.before` (https://opencode.ai/docs/plugins): the plugin
 *   (fence-integrations.ts) writes `{"tool":…,"args":…}` to stdin; `write`, `edit` and `multiedit`
 *   name `args.filePath`, `apply_patch` (and the older `patch`) the files of `args.patchText`.
 *   The answer is `{"allowed":true}` or `{"allowed":false,"message":"…"}` (exit 0 or 3).
 */
import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stateDir } from '../runs/state-dir.js';

export type FenceAsker = 'claude' | 'opencode' | 'cli' | 'watcher';

export interface FencePathResult {
  /** The path as asked. */
  path: string;
  /** The repository path it names, when it names one. */
  repoPath: string | null;
  /** `allowed`: inside the fence (or granted before); `granted`: leased now and added to the fence. */
  status: 'allowed' | 'granted' | 'refused';
  reason?: 'overlap' | 'import' | 'root' | 'serial' | 'control' | 'invalid' | 'own';
  /** Who holds what is in the way. */
  holder?: string;
  /** The import chain, for `import`. */
  via?: string;
  message: string;
}

export type FenceAnswer = { v: 1; results: FencePathResult[] } | { v: 1; error: string };

/** The longest request a checker reads: a thousand long paths. */
export const MAX_FENCE_REQUEST_BYTES = 1024 * 1024;
export const MAX_FENCE_PATHS = 1000;

const RUN_ID = /^resolve-\d{1,16}-\d{8}T\d{9}Z$/;

/** Whether a text is a run id (`resolve-<N>-<stamp>`): the only names a socket is looked for under. */
export function isRunId(text: string): boolean {
  return RUN_ID.test(text);
}

/** The longest unix socket path used: Linux allows 107 bytes, macOS 103. */
export const MAX_SOCKET_PATH_BYTES = 103;

/**
 * The socket of a run's live fence: in waves' state directory, or — when that path is too long for
 * a unix socket (a deep state directory) — in a short folder of /tmp named by the user and a hash
 * of the state directory (`waves-<uid>-<hash>`, made 0700 and checked
 * to be the user's own by the server and the client: `fenceSocketDir`).
 */
export function fenceSocketPath(runId: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!isRunId(runId)) throw new Error(`not a run id: ${JSON.stringify(runId.slice(0, 80))}`);
  return path.join(fenceSocketDir(env), `${runId}.sock`);
}

/** The folder of the runs' fence sockets (see fenceSocketPath); `short`: the temporary one. */
export function fenceSocketDir(env: NodeJS.ProcessEnv = process.env): string {
  const state = stateDir(env);
  const long = path.join(state, 'fence');
  // The longest name a run's socket has: resolve-<16 digits>-<stamp>.sock.
  if (Buffer.byteLength(long) + 1 + 48 <= MAX_SOCKET_PATH_BYTES) return long;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  // /tmp, not TMPDIR: the agent (and the hooks it runs) may be given another TMPDIR than its supervisor.
  const temporary = process.platform === 'win32' ? tmpdir() : '/tmp';
  return path.join(temporary, `waves-${uid}-${createHash('sha256').update(state).digest('hex').slice(0, 12)}`);
}

/** Why a socket folder is not one to trust (not a folder of this user's alone), or null. */
export async function socketDirProblem(dir: string): Promise<string | null> {
  const info = await lstat(dir).catch(() => null);
  if (info === null) return null;
  if (!info.isDirectory()) return `${dir} is not a folder`;
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) return `${dir} belongs to another user`;
  if ((info.mode & 0o077) !== 0) return `${dir} is open to other users (mode ${(info.mode & 0o777).toString(8)})`;
  return null;
}

/** Asks the run's supervisor about paths; an `error` answer when it cannot be reached. */
export function askFence(runId: string, paths: readonly string[], by: FenceAsker, options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<FenceAnswer> {
  let socket: string;
  try {
    socket = fenceSocketPath(runId, options.env);
  } catch (error) {
    return Promise.resolve({ v: 1, error: (error as Error).message });
  }
  const key = (options.env ?? process.env).WAVES_FENCE_TICKET ?? '';
  return socketDirProblem(path.dirname(socket)).then((problem) => (problem !== null ? { v: 1 as const, error: `run ${runId}: the fence socket's folder is not to be trusted: ${problem}` } : askSocket(runId, socket, paths, by, key, options)));
}

function askSocket(runId: string, socket: string, paths: readonly string[], by: FenceAsker, key: string, options: { timeoutMs?: number }): Promise<FenceAnswer> {
  return new Promise((resolve) => {
    let text = '';
    let done = false;
    const finish = (answer: FenceAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      connection.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish({ v: 1, error: `the fence checker of ${runId} did not answer within ${Math.round((options.timeoutMs ?? 30_000) / 1000)} s` }), options.timeoutMs ?? 30_000);
    const connection = createConnection(socket);
    connection.setEncoding('utf8');
    connection.on('connect', () => connection.write(`${JSON.stringify({ v: 1, paths, by, key })}\n`));
    connection.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > MAX_FENCE_REQUEST_BYTES) return finish({ v: 1, error: 'the fence checker answered too much' });
      const end = text.indexOf('\n');
      if (end < 0) return;
      try {
        const answer = JSON.parse(text.slice(0, end)) as FenceAnswer;
        finish(answer);
      } catch {
        finish({ v: 1, error: 'the fence checker answered something that is not JSON' });
      }
    });
    connection.on('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? 'no live fence for this run (it has ended, or never started)' : (error.code ?? error.message);
      finish({ v: 1, error: `run ${runId}: ${why}` });
    });
    connection.on('end', () => finish({ v: 1, error: `run ${runId}: the fence checker closed the connection without an answer` }));
  });
}

/** One line per refused path, for people and agents: the path, why, who holds it, the evidence. */
export function describeRefusal(result: FencePathResult): string {
  return `refused ${result.path}: ${result.message}`;
}

const CLAUDE_EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);

/** The file a Claude Code `PreToolUse` input edits: null for a tool that edits none, `undefined` when one should be there and is not. */
export function claudeHookPaths(input: unknown): string[] | null {
  if (typeof input !== 'object' || input === null) return [];
  const { tool_name: tool, tool_input: args } = input as { tool_name?: unknown; tool_input?: unknown };
  if (typeof tool !== 'string' || !CLAUDE_EDIT_TOOLS.has(tool)) return null;
  if (typeof args !== 'object' || args === null) return [];
  const file = tool === 'NotebookEdit' ? (args as { notebook_path?: unknown }).notebook_path : (args as { file_path?: unknown }).file_path;
  return typeof file === 'string' && file !== '' ? [file] : [];
}

/** The files an opencode tool call writes: null for a tool that writes none. */
export function opencodeHookPaths(input: unknown): string[] | null {
  if (typeof input !== 'object' || input === null) return [];
  const { tool, args } = input as { tool?: unknown; args?: unknown };
  if (typeof tool !== 'string') return [];
  const a = (typeof args === 'object' && args !== null ? args : {}) as { filePath?: unknown; patchText?: unknown };
  if (tool === 'write' || tool === 'edit' || tool === 'multiedit') return typeof a.filePath === 'string' && a.filePath !== '' ? [a.filePath] : [];
  if (tool === 'apply_patch' || tool === 'patch') {
    if (typeof a.patchText !== 'string') return [];
    const files: string[] = [];
    for (const line of a.patchText.split('\n')) {
      const match = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/.exec(line);
      if (match) files.push(match[1]!);
    }
    return files;
  }
  return null;
}

export interface FenceCheckIo {
  stdin: () => Promise<string>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

const USAGE = 'usage: waves fence check [--run ID] PATH… | waves fence check [--run ID] --hook claude|opencode  (the run: --run, else WAVES_RUN)';

/** Control characters shown as escapes: a path from an agent may hold anything. */
const visible = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * `waves fence check`: exit 0 allowed, 3 refused (one line each on stdout: why, who holds it, the
 * chain), 2 bad usage, 1 no checker to ask. In `--hook claude` mode the answer is the hook's JSON
 * (and exit 0, as Claude Code expects); a checker that cannot be reached refuses (fail closed).
 */
export async function runFenceCheck(args: readonly string[], io: FenceCheckIo): Promise<number> {
  let runId: string | null = null;
  let hook: 'claude' | 'opencode' | null = null;
  let json = false;
  const paths: string[] = [];
  let rest = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (rest) paths.push(arg);
    else if (arg === '--') rest = true;
    else if (arg === '--run' || arg.startsWith('--run=')) runId = arg === '--run' ? (args[++i] ?? '') : arg.slice('--run='.length);
    else if (arg === '--hook' || arg.startsWith('--hook=')) {
      const value = arg === '--hook' ? args[++i] : arg.slice('--hook='.length);
      if (value !== 'claude' && value !== 'opencode') {
        io.stderr(`waves: --hook: expected claude or opencode, got ${JSON.stringify(visible(String(value ?? '')))}\n`);
        return 2;
      }
      hook = value;
    } else if (arg === '--json') json = true;
    else if (arg === '--help' || arg === '-h') {
      io.stdout(`${USAGE}\n`);
      return 0;
    } else if (arg.startsWith('--')) {
      io.stderr(`waves: fence check: unknown flag ${visible(arg)}\n${USAGE}\n`);
      return 2;
    } else paths.push(arg);
  }
  runId ??= io.env.WAVES_RUN ?? null;
  // A hook serves every run of its work tree: the run is the agent's own (WAVES_RUN); without one it refuses.
  if (hook !== null) return runHook(hook, runId !== null && isRunId(runId) ? runId : null, io);
  if (runId === null || !isRunId(runId)) {
    io.stderr(`waves: --run: expected a run id such as resolve-101-20261129T120000123Z${runId === null ? '' : `, got ${JSON.stringify(visible(runId.slice(0, 80)))}`}\n`);
    return 2;
  }
  if (paths.length === 0) {
    io.stderr(`waves: fence check: name at least one path\n${USAGE}\n`);
    return 2;
  }
  if (paths.length > MAX_FENCE_PATHS) {
    io.stderr(`waves: fence check: at most ${MAX_FENCE_PATHS} paths at once\n`);
    return 2;
  }
  const answer = await askFence(runId, paths, 'cli', { env: io.env });
  if ('error' in answer) {
    io.stderr(`waves: ${visible(answer.error)}\n`);
    return 1;
  }
  if (json) io.stdout(`${JSON.stringify(answer.results, null, 2)}\n`);
  const refused = answer.results.filter((r) => r.status === 'refused');
  if (!json) {
    for (const result of answer.results) io.stdout(`${visible(result.status === 'refused' ? describeRefusal(result) : `${result.status} ${result.path}: ${result.message}`)}\n`);
  }
  return refused.length > 0 ? 3 : 0;
}

/**
 * The opencode plugin's question (fence-integrations.ts calls it in opencode's own process):
 * `{allowed: true}`, or `{allowed: false, message}` to throw. Fails closed.
 */
export async function opencodeCheck(runId: string, input: { tool: unknown; args: unknown }, env: NodeJS.ProcessEnv = process.env): Promise<{ allowed: true } | { allowed: false; message: string }> {
  const paths = opencodeHookPaths(input);
  if (paths === null) return { allowed: true };
  if (paths.length === 0) return { allowed: false, message: 'waves fence: the tool input names no file; the edit is refused' };
  const answer = await askFence(runId, paths, 'opencode', { env });
  if ('error' in answer) return { allowed: false, message: `waves fence: ${answer.error}; the edit is refused` };
  const refused = answer.results.filter((r) => r.status === 'refused');
  if (refused.length === 0) return { allowed: true };
  return { allowed: false, message: refusalAdvice(refused) };
}

/** What an agent is told when its edit is refused: each path with why and who holds it, then what it may do. */
export function refusalAdvice(refused: readonly FencePathResult[]): string {
  return `${refused.map(describeRefusal).join('\n')}\nThis file is outside your fence and cannot be added to it now. Work around it, wait, or stop with a note saying what you needed.`;
}

async function runHook(hook: 'claude' | 'opencode', runId: string | null, io: FenceCheckIo): Promise<number> {
  const text = await io.stdin();
  let input: unknown = null;
  try {
    input = JSON.parse(text);
  } catch {
    input = null;
  }
  const paths = hook === 'claude' ? claudeHookPaths(input) : opencodeHookPaths(input);
  const refuse = (message: string) => {
    if (hook === 'claude') {
      io.stdout(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: message } })}\n`);
      return 0;
    }
    io.stdout(`${JSON.stringify({ allowed: false, message })}\n`);
    return 3;
  };
  const allow = () => {
    if (hook === 'opencode') io.stdout(`${JSON.stringify({ allowed: true })}\n`);
    return 0;
  };
  if (input === null) return refuse('waves fence: the hook input is not JSON; the edit is refused');
  if (paths === null) return allow();
  if (runId === null) return refuse("waves fence: this agent runs in no waves run known to the hook (WAVES_RUN is not set to a run id in its environment); the edit is refused");
  if (paths.length === 0) return refuse('waves fence: the tool input names no file; the edit is refused');
  const answer = await askFence(runId, paths, hook, { env: io.env });
  if ('error' in answer) return refuse(`waves fence: ${answer.error}; the edit is refused`);
  const refused = answer.results.filter((r) => r.status === 'refused');
  if (refused.length === 0) return allow();
  return refuse(refusalAdvice(refused));
}
