/**
 * The files waves writes beside a run's record in `.dispatch-runs/` — the run's log and pid file,
 * a verification's log — which an agent in the shared work tree can reach: it may replace them
 * while it runs by a link (to `~/.bashrc`, to a 0600 secret, to `/dev/zero`), a FIFO, a directory.
 * So waves never writes or reads them by their name once the process is started:
 *
 * - each is created before the process starts, O_CREAT|O_EXCL|O_NOFOLLOW (whatever an agent planted
 *   at the name is removed first — the name, never what a link points to), the log 0600 (an
 *   agent's output may hold what it read), the pid file 0644; the folder is held open too, and on
 *   Linux every name is looked up in the folder held (`/proc/self/fd/<fd>/<name>`, held-dir.ts), so
 *   a `.dispatch-runs` swapped for a link meanwhile is not followed either;
 * - the log's descriptor is kept: the process writes its output to it, waves its notes (never
 *   appended by name);
 * - at the end (`finish`) the log is read back through that descriptor, never past the size it had
 *   then (a link to /dev/zero at the name costs nothing), redacted, written to a new file created
 *   O_EXCL|O_NOFOLLOW in the folder held and renamed over the name — which puts the log back at its
 *   name whatever stands there now (a link or a FIFO is replaced, never followed or opened). The
 *   original is emptied. Leftover `<name>.*.redact.tmp` files (a supervisor killed mid-way) go.
 */
import { closeSync, constants, existsSync, type Stats, fstatSync, ftruncateSync, lstatSync, openSync, read, readdirSync, renameSync, unlinkSync, write, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redactor } from './redact.js';

const readAt = promisify(read);
const writeAt = promisify(write);

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const CREATE = constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
const CHUNK = 1 << 20;
/** How often a name something keeps planting at is cleared and created again before waves gives up. */
const ATTEMPTS = 50;

/** A runs folder whose name holds a link or a file, not a folder. */
export class NotAFolderError extends Error {}

/** A `.dispatch-runs` folder held open: its entries named through it where /proc allows. */
export class RunsDir {
  private constructor(
    readonly dir: string,
    private readonly fd: number | null,
  ) {}

  /** Opens a runs folder (never through a link at its own name). */
  static open(dir: string): RunsDir {
    let fd: number | null = null;
    try {
      fd = openSync(dir, constants.O_RDONLY | DIRECTORY | NOFOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'ENOTDIR') throw new NotAFolderError(`${dir} is not a folder (a link or a file stands there): waves writes run files only into a real folder`);
      throw error;
    }
    const held = process.platform === 'linux' && existsSync(`/proc/self/fd/${fd}`);
    if (!held) {
      closeSync(fd);
      fd = null;
    }
    return new RunsDir(dir, fd);
  }

  /** The entry `name`, named through the folder held (Linux) or by its path. */
  entry(name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes('/')) throw new Error(`not an entry name: ${JSON.stringify(name)}`);
    return this.fd === null ? path.join(this.dir, name) : `/proc/self/fd/${this.fd}/${name}`;
  }

  names(): string[] {
    try {
      return readdirSync(this.fd === null ? this.dir : `/proc/self/fd/${this.fd}`);
    } catch {
      return [];
    }
  }

  /**
   * Creates `name` anew (O_CREAT|O_EXCL|O_NOFOLLOW) and returns its descriptor. Something already
   * there — planted by an agent: a link, a FIFO, a file — is removed first (the name only); a
   * folder there is refused.
   */
  create(name: string, flags: number, mode: number): number {
    const entry = this.entry(name);
    for (let attempt = 0; ; attempt++) {
      try {
        return openSync(entry, flags | CREATE, mode);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST' || attempt >= ATTEMPTS) throw new Error(`${path.join(this.dir, name)} cannot be created (${code ?? (error as Error).message})`);
      }
      let info;
      try {
        info = lstatSync(entry);
      } catch {
        continue;
      }
      if (info.isDirectory()) throw new Error(`${path.join(this.dir, name)} is a folder: waves creates that file itself (remove the folder)`);
      try {
        unlinkSync(entry);
      } catch {
        // gone meanwhile: create again
      }
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}

export class HeldLog {
  private closed = false;

  private constructor(
    readonly file: string,
    private readonly dir: RunsDir,
    private readonly name: string,
    /** The log's descriptor (read and append): what the process writes to, and waves reads back. */
    readonly fd: number,
    private readonly mode: number,
  ) {}

  /** Creates the log `file` anew (0600), and its folder is held for `finish`. */
  static create(file: string, mode = 0o600): HeldLog {
    const dir = RunsDir.open(path.dirname(file));
    try {
      const name = path.basename(file);
      const fd = dir.create(name, constants.O_RDWR | constants.O_APPEND, mode);
      return new HeldLog(file, dir, name, fd, mode);
    } catch (error) {
      dir.close();
      throw error;
    }
  }

  /** Appends to the log through its descriptor (a line of waves' own…); a failure is ignored. */
  append(text: string): void {
    if (this.closed) return;
    try {
      writeSync(this.fd, text);
    } catch {
      // a full disk: the record still says what happened
    }
  }

  /** The log's path as the kernel knows the open file (for the tracker's writers of it). */
  openPath(): string {
    return `/proc/self/fd/${this.fd}`;
  }

  /**
   * Puts the log, redacted of `secrets`, back at its name (see the header); null when done, else
   * what went wrong (one phrase, for a note in the record). Closes the log.
   */
  async finish(secrets: readonly string[]): Promise<string | null> {
    if (this.closed) return null;
    try {
      const info = fstatSync(this.fd);
      let named: Stats | null = null;
      try {
        named = lstatSync(this.dir.entry(this.name));
      } catch {
        named = null;
      }
      const inPlace = named !== null && named.isFile() && named.ino === info.ino && named.dev === info.dev;
      const pending = secrets.some((s) => s.length > 0);
      if (inPlace && !pending) return null;
      const temp = `${this.name}.${process.pid}.${randomBytes(4).toString('hex')}.redact.tmp`;
      const out = this.dir.create(temp, constants.O_WRONLY, this.mode);
      try {
        const redactor = new Redactor(secrets);
        const buffer = Buffer.alloc(CHUNK);
        // Never past the size it has now: whatever is written meanwhile, the copy ends.
        for (let at = 0; at < info.size; ) {
          const { bytesRead } = await readAt(this.fd, buffer, 0, Math.min(CHUNK, info.size - at), at);
          if (bytesRead === 0) break;
          at += bytesRead;
          await writeAll(out, redactor.push(Buffer.from(buffer.subarray(0, bytesRead))));
        }
        await writeAll(out, redactor.flush());
        if (!inPlace) await writeAll(out, Buffer.from(`\n[waves] the log's name was replaced while the run went on (by ${describe(named)}); this is the log waves kept, put back\n`));
        closeSync(out);
      } catch (error) {
        closeSync(out);
        try {
          unlinkSync(this.dir.entry(temp));
        } catch {
          // already gone
        }
        throw error;
      }
      try {
        // Whatever stands at the name — the log, a link, a FIFO, a file — is replaced, never followed.
        renameSync(this.dir.entry(temp), this.dir.entry(this.name));
      } catch (error) {
        try {
          unlinkSync(this.dir.entry(temp));
        } catch {
          // already gone
        }
        return `the log could not be put back at ${this.file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): something else stands there`;
      }
      // No unredacted copy is left, wherever another link to the original may be.
      if (pending) ftruncateSync(this.fd, 0);
      return null;
    } catch (error) {
      return `the log could not be finished (${(error as Error).message.split('\n')[0]})`;
    } finally {
      this.cleanLeftovers();
      this.close();
    }
  }

  /** Removes `<name>.*.redact.tmp` files a supervisor killed while it finished this log left. */
  private cleanLeftovers(): void {
    for (const entry of this.dir.names()) {
      if (!entry.startsWith(`${this.name}.`) || !entry.endsWith('.redact.tmp')) continue;
      try {
        unlinkSync(this.dir.entry(entry));
      } catch {
        // gone
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.dir.close();
  }
}

async function writeAll(fd: number, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    const { bytesWritten } = await writeAt(fd, bytes, at, bytes.length - at);
    at += bytesWritten;
  }
}

function describe(info: Stats | null): string {
  if (info === null) return 'nothing: it was removed';
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isDirectory()) return 'a folder';
  if (info.isFile()) return 'another file';
  return 'a socket or device';
}

/**
 * A pid file created anew (0644) before the process starts, written through its descriptor once
 * the pid is known; `finish` puts it back at its name (a new file renamed over whatever an agent
 * put there: a link is replaced, never followed).
 */
export function createPidFile(file: string): { write(pid: number): void; finish(): void; close(): void } {
  const dir = RunsDir.open(path.dirname(file));
  const name = path.basename(file);
  let fd: number | null;
  try {
    fd = dir.create(name, constants.O_WRONLY, 0o644);
  } catch (error) {
    dir.close();
    throw error;
  }
  let text: string | null = null;
  const close = () => {
    if (fd === null) return;
    closeSync(fd);
    fd = null;
    dir.close();
  };
  return {
    write(pid: number) {
      if (fd === null) return;
      text = `${pid}\n`;
      try {
        writeSync(fd, text);
      } catch {
        // a full disk: the record holds the pid too
      }
    },
    finish() {
      if (fd === null) return;
      try {
        const info = fstatSync(fd);
        let named: Stats | null = null;
        try {
          named = lstatSync(dir.entry(name));
        } catch {
          named = null;
        }
        if (text !== null && !(named !== null && named.isFile() && named.ino === info.ino && named.dev === info.dev)) {
          const temp = `${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
          const out = dir.create(temp, constants.O_WRONLY, 0o644);
          try {
            writeSync(out, text);
          } finally {
            closeSync(out);
          }
          try {
            renameSync(dir.entry(temp), dir.entry(name));
          } catch {
            unlinkSync(dir.entry(temp));
          }
        }
      } catch {
        // the record holds the pid
      } finally {
        close();
      }
    },
    close,
  };
}
