/**
 * Adapter: one file of a repository as text, read as the graph reads its files (read-repo-file.ts:
 * a regular file inside the repository, at most 2 MB, opened non-blocking) — for the CLI's reads of
 * a repository's own files. Its own module: the reader's types name Node's Buffer, which a
 * consumer of the planner's types need not have.
 */
import type { RepoPath } from '../types.js';
import { MAX_SOURCE_BYTES, repoFileReader } from './read-repo-file.js';

/** The text of `file` in the repository at `root`, or why it was not read (null: it is not there, or cannot be read at all). */
export function readRepoText(root: string, file: RepoPath, maxBytes: number = MAX_SOURCE_BYTES): { ok: true; text: string } | { ok: false; reason: string | null } {
  const read = repoFileReader(root, maxBytes).read(file);
  return read.ok ? { ok: true, text: read.content.toString('utf8') } : read;
}
