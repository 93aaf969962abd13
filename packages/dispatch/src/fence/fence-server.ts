/**
 * The socket a run's supervisor answers fence checks on (protocol: fence-client.ts). One per run,
 * in waves' state directory (a folder readable by its owner alone, the socket 0600), removed when
 * the run ends. A request is one JSON line of at most `MAX_FENCE_REQUEST_BYTES`; anything else is
 * answered with an error and the connection closed.
 */
import { chmod, lstat, mkdir, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { fenceSocketPath, MAX_FENCE_PATHS, MAX_FENCE_REQUEST_BYTES, type FenceAnswer, type FenceAsker } from './fence-client.js';
import type { FenceKeeper } from './fence-keeper.js';

const ASKERS = new Set<FenceAsker>(['claude', 'opencode', 'cli', 'watcher']);

export interface FenceServer {
  socket: string;
  close(): Promise<void>;
}

/** Starts answering fence checks for a run; throws when the socket cannot be made (the caller notes it: the watcher still guards). */
export async function startFenceServer(runId: string, keeper: FenceKeeper, env: NodeJS.ProcessEnv = process.env): Promise<FenceServer> {
  const socket = fenceSocketPath(runId, env);
  // A unix socket's path is at most 107 bytes on Linux (103 on macOS).
  if (Buffer.byteLength(socket) > 103) throw new Error(`the fence socket path ${socket} is too long for a unix socket (set WAVES_STATE_DIR to a shorter folder)`);
  await mkdir(path.dirname(socket), { recursive: true, mode: 0o700 });
  const old = await lstat(socket).catch(() => null);
  if (old !== null) {
    if (!old.isSocket()) throw new Error(`${socket} exists and is not a socket: remove it`);
    // Left by a supervisor that was killed: nobody answers there. One that answers is another
    // live run's of the same id (another repository, the same issue and millisecond): kept.
    if (await answers(socket)) throw new Error(`${socket} is the live fence of another run of the same id`);
    await rm(socket, { force: true });
  }
  const server: Server = createServer((connection: Socket) => serve(connection, keeper));
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
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socket, { force: true }).catch(() => undefined);
    },
  };
}

/** Whether something listens on a unix socket (a connection accepted within half a second). */
function answers(socket: string): Promise<boolean> {
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

function serve(connection: Socket, keeper: FenceKeeper): void {
  let text = '';
  let answered = false;
  connection.setEncoding('utf8');
  const answer = (value: FenceAnswer) => {
    if (answered) return;
    answered = true;
    connection.end(`${JSON.stringify(value)}\n`);
  };
  connection.on('error', () => undefined);
  connection.setTimeout(30_000, () => connection.destroy());
  connection.on('data', (chunk: string) => {
    if (answered) return;
    text += chunk;
    if (text.length > MAX_FENCE_REQUEST_BYTES) return answer({ v: 1, error: 'request too large' });
    const end = text.indexOf('\n');
    if (end < 0) return;
    let request: { v?: unknown; paths?: unknown; by?: unknown };
    try {
      request = JSON.parse(text.slice(0, end));
    } catch {
      return answer({ v: 1, error: 'the request is not JSON' });
    }
    const { paths, by } = request ?? {};
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
