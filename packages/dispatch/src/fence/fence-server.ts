/**
 * The socket a run's supervisor answers fence checks on (protocol: fence-client.ts). One per run,
 * in a folder of its owner alone (waves' state directory, or a short one: fenceSocketPath), the
 * socket 0600, removed when the run ends. A request is one JSON line of at most
 * `MAX_FENCE_REQUEST_BYTES`, carrying the run's key (`WAVES_FENCE_TICKET` of its agent); anything else
 * is answered with an error and the connection closed. A connection sends its question within
 * `QUESTION_WITHIN_MS` and lives at most `CONNECTION_LIFE_MS` whatever it sends, and closing the server ends every one still open: a
 * process holding a connection never keeps a finished run from settling.
 */
import { timingSafeEqual } from 'node:crypto';
import { chmod, lstat, mkdir, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { fenceSocketPath, MAX_FENCE_PATHS, MAX_FENCE_REQUEST_BYTES, MAX_SOCKET_PATH_BYTES, socketDirProblem, type FenceAnswer, type FenceAsker } from './fence-client.js';
import type { FenceKeeper } from './fence-keeper.js';

const ASKERS = new Set<FenceAsker>(['claude', 'opencode', 'cli', 'watcher']);

/** The longest a connection to a run's socket stays open (a question takes milliseconds; a check that leases, seconds). */
export const CONNECTION_LIFE_MS = 60_000;
/** How long a connection may take to send its question line. */
export const QUESTION_WITHIN_MS = 5_000;
/** The most connections open at once; more are closed at once. */
export const MAX_CONNECTIONS = 64;

export interface FenceServer {
  socket: string;
  close(): Promise<void>;
}

/**
 * Starts answering fence checks for a run, to requests carrying `key`; throws when the socket
 * cannot be made (the caller installs no hooks then: the watcher still guards).
 */
export async function startFenceServer(runId: string, keeper: Pick<FenceKeeper, 'check'>, env: NodeJS.ProcessEnv, key: string): Promise<FenceServer> {
  if (key.length < 16) throw new Error('a fence key of at least 16 characters is needed');
  const socket = fenceSocketPath(runId, env);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) throw new Error(`the fence socket path ${socket} is too long for a unix socket (set WAVES_STATE_DIR to a shorter folder)`);
  await mkdir(path.dirname(socket), { recursive: true, mode: 0o700 });
  const problem = await socketDirProblem(path.dirname(socket));
  if (problem !== null) throw new Error(`the fence socket's folder is not to be trusted: ${problem}`);
  const old = await lstat(socket).catch(() => null);
  if (old !== null) {
    if (!old.isSocket()) throw new Error(`${socket} exists and is not a socket: remove it`);
    // Left by a supervisor that was killed: nobody answers there. One that answers is another
    // live run's of the same id (another repository, the same issue and millisecond): kept.
    if (await answers(socket)) throw new Error(`${socket} is the live fence of another run of the same id`);
    await rm(socket, { force: true });
  }
  const open = new Set<Socket>();
  const server: Server = createServer((connection: Socket) => {
    if (open.size >= MAX_CONNECTIONS) {
      connection.destroy();
      return;
    }
    open.add(connection);
    connection.once('close', () => open.delete(connection));
    serve(connection, keeper, key);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(socket, 0o600).catch(() => undefined);
  server.unref();
  return {
    socket,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const connection of open) connection.destroy();
      await closed;
      await rm(socket, { force: true }).catch(() => undefined);
    },
  };
}

/** Whether something listens on a unix socket (a connection accepted within half a second). */
/**
 * Removes the socket a run's supervisor left when it was killed (`kill -9`: it removed nothing),
 * once the run is settled without it: only a socket, only where nobody answers.
 */
export async function removeDeadSocket(runId: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let socket: string;
  try {
    socket = fenceSocketPath(runId, env);
  } catch {
    return;
  }
  const info = await lstat(socket).catch(() => null);
  if (info === null || !info.isSocket() || (await answers(socket))) return;
  await rm(socket, { force: true }).catch(() => undefined);
}

export function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(socket);
    const done = (live: boolean) => {
      clearTimeout(timer);
      probe.destroy();
      resolve(live);
    };
    const timer = setTimeout(() => done(false), 500);
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
  });
}

function sameKey(given: unknown, key: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

function serve(connection: Socket, keeper: Pick<FenceKeeper, 'check'>, key: string): void {
  let text = '';
  let answered = false;
  connection.setEncoding('utf8');
  const answer = (value: FenceAnswer) => {
    if (answered) return;
    answered = true;
    connection.end(`${JSON.stringify(value)}\n`);
  };
  connection.on('error', () => undefined);
  // Its whole life is bounded, not its idle time: a byte now and then does not keep it.
  const life = setTimeout(() => connection.destroy(), CONNECTION_LIFE_MS);
  life.unref();
  // And a question comes at once (a hook's, a client's): a connection that sends none is closed.
  const question = setTimeout(() => {
    if (!text.includes('\n')) connection.destroy();
  }, QUESTION_WITHIN_MS);
  question.unref();
  connection.once('close', () => {
    clearTimeout(life);
    clearTimeout(question);
  });
  connection.on('data', (chunk: string) => {
    if (answered) return;
    text += chunk;
    if (text.length > MAX_FENCE_REQUEST_BYTES) return answer({ v: 1, error: 'request too large' });
    const end = text.indexOf('\n');
    if (end < 0) return;
    let request: { v?: unknown; paths?: unknown; by?: unknown; key?: unknown };
    try {
      request = JSON.parse(text.slice(0, end));
    } catch {
      return answer({ v: 1, error: 'the request is not JSON' });
    }
    const { paths, by } = request ?? {};
    // Only the run's own processes have its key: another run's agent asking is neither answered nor recorded.
    if (!sameKey(request?.key, key)) return answer({ v: 1, error: "the request does not carry this run's key (WAVES_FENCE_TICKET of the run's agent): only the run's own processes may ask its fence" });
    if (!Array.isArray(paths) || paths.length === 0 || paths.length > MAX_FENCE_PATHS || !paths.every((p) => typeof p === 'string')) {
      return answer({ v: 1, error: `paths: expected 1 to ${MAX_FENCE_PATHS} strings` });
    }
    const asker: FenceAsker = typeof by === 'string' && ASKERS.has(by as FenceAsker) && by !== 'watcher' ? (by as FenceAsker) : 'cli';
    keeper.check(paths as string[], asker).then(
      (results) => answer({ v: 1, results }),
      (error: unknown) => answer({ v: 1, error: (error as Error).message.split('\n')[0] ?? 'failed' }),
    );
  });
}
