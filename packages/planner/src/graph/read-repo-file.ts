/**
 * Adapter: reads one file of a repository, and only what the repository itself holds. A cloned
 * repository is untrusted input: a tracked symlink `src/zero.ts -> /dev/zero` would make a plain
 * read run until memory ran out, one to `~/.ssh/id_rsa` would read a secret, and opening a FIFO
 * blocks forever. So a file is read only when
 *
 * - its real path (every symlink resolved) lies inside the root's real path — a link to another
 *   file of the repository is fine;
 * - it is a regular file, checked on the open descriptor (opened non-blocking, so a FIFO never
 *   blocks the open, and never read);
 * - it is no larger than the limit (2 MB by default: no hand-written source file comes close).
 *
 * Anything else comes back as a reason, for the caller to report: never silently. The open, the
 * type check and the bounded read are read-regular-file.ts's.
 */
import { readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { RepoPath } from '../types.js';
import { readRegularBytesSync } from './read-regular-file.js';

/** The default size limit of a file waves reads from a repository. */
export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

export type RepoRead =
  | { ok: true; content: Buffer }
  /** `reason` says why waves refused to read it; null for a file that vanished or cannot be read at all. */
  | { ok: false; reason: string | null };

export interface RepoFileReader {
  read(file: RepoPath): RepoRead;
}

/** A reader for the repository at `root` (resolved once to its real path). */
export function repoFileReader(root: string, maxBytes = MAX_SOURCE_BYTES): RepoFileReader {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    realRoot = path.resolve(root);
  }
  const inside = (real: string) => real === realRoot || real.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
  const openedInside = (fd: number): boolean => {
    if (process.platform !== 'linux') return true;
    try {
      return inside(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      return true; // no /proc: the path check before the open stands alone
    }
  };
  return {
    read(file) {
      let real: string;
      try {
        real = realpathSync(path.join(realRoot, file));
      } catch {
        return { ok: false, reason: null };
      }
      if (!inside(real)) return { ok: false, reason: 'a symbolic link leading outside the repository' };
      // The real path has no link left; O_NOFOLLOW keeps one swapped in since from being followed in
      // its last part, and where the system says what a descriptor opened (Linux), a folder swapped
      // for a link between the check and the open is caught too.
      const read = readRegularBytesSync(real, { maxBytes, opened: openedInside });
      if (read.ok) return { ok: true, content: Buffer.from(read.content.buffer, read.content.byteOffset, read.content.byteLength) };
      if (read.kind === 'link') return { ok: false, reason: 'a symbolic link leading outside the repository' };
      if (read.kind === 'not-regular') return { ok: false, reason: 'not a regular file (a FIFO, socket or device)' };
      if (read.kind === 'too-large') return { ok: false, reason: read.reason.replace(/^is /, '') };
      return { ok: false, reason: null };
    },
  };
}
