/**
 * Reads a file named on the command line — `compare BASELINE`, `--truth-graph`, `--from-issues` —
 * as text, within bounds. The file is the user's choice, so a pipe is fine (`<(gh issue list …)`
 * is `/dev/fd/63`, a FIFO), but a device is refused before it is opened (`/dev/zero` read ~512 MB
 * and ended in "Invalid string length", red team 2, #17), as are a directory and a socket; and the
 * reading stops past `maxBytes`. Each refusal is one phrase to follow the file's name.
 *
 * A FIFO is opened without blocking (a plain open waits forever for a writer: `waves compare
 * <FIFO>` hung, red team 3, #13) and read as its writer writes; one that no program writes to —
 * nothing read, no writer for `FIFO_WAIT_MS` — is refused.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { megabytes } from '@waves/planner';

export type UserRead = { ok: true; text: string } | { ok: false; reason: string };

function kind(info: { isDirectory(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string | null {
  if (info.isDirectory()) return 'is a directory, not a file';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'is a device, not a file';
  if (info.isSocket()) return 'is a socket, not a file';
  return null;
}

/** How long a FIFO may go without a writer before anything was read from it. */
const FIFO_WAIT_MS = 3_000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function readUserFile(file: string, maxBytes: number): Promise<UserRead> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : code === 'EACCES' ? 'permission denied' : `cannot read it (${code ?? (error as Error).message})` };
  }
  const refused = kind(info);
  if (refused) return { ok: false, reason: refused };
  if (info.isFile() && info.size > maxBytes) return { ok: false, reason: `is larger than ${megabytes(maxBytes)} (${megabytes(info.size)})` };
  let handle;
  try {
    handle = await open(file, info.isFIFO() ? constants.O_RDONLY | constants.O_NONBLOCK : 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'EACCES' ? 'permission denied' : `cannot read it (${code ?? (error as Error).message})` };
  }
  try {
    // Swapped for a device between the stat and the open: checked again on what was opened.
    const again = kind(await handle.stat());
    if (again) return { ok: false, reason: again };
    const chunks: Buffer[] = [];
    let total = 0;
    const fifo = info.isFIFO();
    let writerSeen = false;
    const since = Date.now();
    for (;;) {
      const buffer = Buffer.alloc(Math.min(1 << 20, maxBytes + 1 - total));
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, buffer.length, null));
      } catch (error) {
        // A FIFO whose writer has not written yet.
        if (!fifo || (error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        writerSeen = true;
        await pause(20);
        continue;
      }
      if (bytesRead === 0) {
        // A FIFO with no writer (yet): nothing read so far, it may still come, for a while.
        if (fifo && !writerSeen && total === 0) {
          if (Date.now() - since > FIFO_WAIT_MS) return { ok: false, reason: `is a FIFO no program wrote to within ${FIFO_WAIT_MS / 1000} s` };
          await pause(50);
          continue;
        }
        break;
      }
      if (fifo) writerSeen = true;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return { ok: false, reason: `is larger than ${megabytes(maxBytes)}` };
    }
    return { ok: true, text: Buffer.concat(chunks, total).toString('utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'EISDIR' ? 'is a directory, not a file' : `cannot read it (${code ?? (error as Error).message})` };
  } finally {
    await handle.close();
  }
}
