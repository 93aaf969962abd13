/**
 * Adapter: reads one file waves reads back by its path — a run record, the lease journal, a
 * config, a prompt file, an issues file a config names, the graph cache, a tsconfig's `extends` —
 * any of which an agent or a cloned repository could have replaced by a FIFO (a plain read would
 * block for ever, deaf to SIGTERM while libuv's thread waits), a device (`/dev/zero`: read until
 * memory runs out), a link, or something huge. So the file is
 *
 * - opened non-blocking (a FIFO never blocks the open) and, unless asked, without following a link
 *   in its last component (O_NOFOLLOW: the link is refused);
 * - checked on the open descriptor: a regular file only, no larger than `maxBytes`;
 * - read to its end, but never past `maxBytes` (a file that grows meanwhile is refused too).
 *
 * Anything else comes back as data — a kind and a short phrase to follow the file's name — for the
 * caller to turn into its one-line error. repoFileReader (read-repo-file.ts) adds the repository
 * root's containment on top, for the files of a repository's tree.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const THIS_FILE = fileURLToPath(import.meta.url);

/**
 * Makes the last synchronous stat of the process one of a regular file.
 *
 * NOTE: Node 20's module loader resolves symbolic links with a JavaScript realpath that, for a path
 * component it has already seen, looks at the *last* stat the process made (one shared buffer) and
 * stops resolving when that stat was of a FIFO or a socket. After waves has stat'ed a FIFO (a
 * refused tsconfig `extends` target, a file of the tree), a `require` through pnpm's links then
 * loads a package by its link path, and the package's own dependencies are not found:
 * `Cannot find module '@ts-morph/common'` (red team 2, #12). A stat of this very file, a regular
 * one, before any module is loaded late, and after any stat of something else, avoids it.
 */
export function forgetLastStat(): void {
  try {
    statSync(THIS_FILE);
  } catch {
    // The module's own file is there while it runs; nothing else to do if not.
  }
}

/** Why a file was not read: gone, a link (not followed), not a regular file, too large, or an error. */
export type RefusalKind = 'missing' | 'link' | 'not-regular' | 'too-large' | 'unreadable';

export type Refusal = { ok: false; kind: RefusalKind; reason: string };

/** A file's text (UTF-8), or why it was not read; `reason` is one phrase to follow its name: "is not a regular file (a FIFO)". */
export type RegularRead = { ok: true; text: string } | Refusal;

/** The same, as bytes. */
export type RegularBytes = { ok: true; content: Uint8Array } | Refusal;

export interface RegularReadOptions {
  /** Past this many bytes the file is refused (`too-large`), whatever fstat said. */
  maxBytes: number;
  /** Follow a symbolic link in the last component (default false: a link is refused). */
  followLinks?: boolean;
  /**
   * Asked with the open descriptor before anything is read: false refuses the file (`link`). A
   * caller that checked the path's folders before the open uses it to check what was opened.
   */
  opened?: (fd: number) => boolean;
}

const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** `2 MB`, `1.5 MB`, `12 KB`, `900 bytes`. */
export function megabytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes} bytes`;
}

function openFlags(options: RegularReadOptions): number {
  return constants.O_RDONLY | NONBLOCK | (options.followLinks ? 0 : NOFOLLOW);
}

function refusedOpen(error: unknown): Refusal {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, kind: 'missing', reason: 'no such file' };
  // O_NOFOLLOW on a link: ELOOP on Linux, EMLINK on FreeBSD.
  if (code === 'ELOOP' || code === 'EMLINK') return { ok: false, kind: 'link', reason: 'is a symbolic link (not followed)' };
  // A socket cannot be opened; a FIFO without a writer can (non-blocking) and is refused by fstat.
  if (code === 'ENXIO' || code === 'EOPNOTSUPP') return { ok: false, kind: 'not-regular', reason: 'is not a regular file (a socket)' };
  return { ok: false, kind: 'unreadable', reason: `cannot be read (${code ?? (error as Error).message})` };
}

/** The refusal of what fstat says is not a regular file, or of a size past the limit; null when it may be read. */
function checkOpened(info: { isFile(): boolean; isDirectory(): boolean; isFIFO(): boolean; size: number }, maxBytes: number): Refusal | null {
  if (!info.isFile()) {
    const what = info.isDirectory() ? 'a directory' : info.isFIFO() ? 'a FIFO' : 'a socket or device';
    return { ok: false, kind: 'not-regular', reason: `is not a regular file (${what})` };
  }
  return info.size > maxBytes ? tooLarge(maxBytes, info.size) : null;
}

function tooLarge(maxBytes: number, size: number | null): Refusal {
  return { ok: false, kind: 'too-large', reason: `is larger than ${megabytes(maxBytes)}${size !== null ? ` (${megabytes(size)})` : ''}` };
}

/** Reads the whole of a regular file as bytes, never more than `maxBytes` (see the header). */
export function readRegularBytesSync(file: string, options: RegularReadOptions): RegularBytes {
  let fd: number;
  try {
    fd = openSync(file, openFlags(options));
  } catch (error) {
    return refusedOpen(error);
  }
  try {
    if (options.opened && !options.opened(fd)) return { ok: false, kind: 'link', reason: 'was reached through a symbolic link (not followed)' };
    const info = fstatSync(fd);
    const refused = checkOpened(info, options.maxBytes);
    if (refused) {
      forgetLastStat();
      return refused;
    }
    // One byte more than allowed, to notice a file that grew since fstat.
    const content = Buffer.alloc(Math.min(info.size, options.maxBytes) + 1);
    let filled = 0;
    while (filled < content.length) {
      const n = readSync(fd, content, filled, content.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    if (filled > options.maxBytes) return tooLarge(options.maxBytes, null);
    return { ok: true, content: content.subarray(0, filled) };
  } catch (error) {
    return refusedOpen(error);
  } finally {
    closeSync(fd);
  }
}

/** Reads the whole of a regular file as UTF-8 text, never more than `maxBytes` (see the header). */
export function readRegularFileSync(file: string, options: RegularReadOptions): RegularRead {
  const read = readRegularBytesSync(file, options);
  return read.ok ? { ok: true, text: Buffer.from(read.content.buffer, read.content.byteOffset, read.content.byteLength).toString('utf8') } : read;
}

/** The asynchronous `readRegularBytesSync`: never blocks the event loop, and never waits on a FIFO. */
export async function readRegularBytes(file: string, options: RegularReadOptions): Promise<RegularBytes> {
  let handle;
  try {
    handle = await open(file, openFlags(options));
  } catch (error) {
    return refusedOpen(error);
  }
  try {
    const info = await handle.stat();
    const refused = checkOpened(info, options.maxBytes);
    if (refused) {
      forgetLastStat();
      return refused;
    }
    const content = Buffer.alloc(Math.min(info.size, options.maxBytes) + 1);
    let filled = 0;
    while (filled < content.length) {
      const { bytesRead } = await handle.read(content, filled, content.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > options.maxBytes) return tooLarge(options.maxBytes, null);
    return { ok: true, content: content.subarray(0, filled) };
  } catch (error) {
    return refusedOpen(error);
  } finally {
    await handle.close();
  }
}

/** The asynchronous `readRegularFileSync`: never blocks the event loop, and never waits on a FIFO. */
export async function readRegularFile(file: string, options: RegularReadOptions): Promise<RegularRead> {
  const read = await readRegularBytes(file, options);
  return read.ok ? { ok: true, text: Buffer.from(read.content.buffer, read.content.byteOffset, read.content.byteLength).toString('utf8') } : read;
}

/**
 * A source file's text as TypeScript reads it: UTF-8, its byte-order mark dropped, or UTF-16
 * (little or big endian) when its byte-order mark says so — a repository whose `.gitattributes`
 * sets `working-tree-encoding=UTF-16LE-BOM` checks its sources out so, and read as UTF-8 they
 * held no import at all.
 */
export function decodeSource(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length >= 2 && buffer[0] === 0xff && buffer[1] === 0xfe) return buffer.subarray(2).toString('utf16le');
  if (buffer.length >= 2 && buffer[0] === 0xfe && buffer[1] === 0xff) {
    const swapped = Buffer.from(buffer.subarray(2, 2 + ((buffer.length - 2) & ~1)));
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  const text = buffer.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
