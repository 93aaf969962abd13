/**
 * What TypeScript's fallback is handed of the repository's configuration. Its resolver walks a
 * tsconfig's `paths` again for every specifier it is asked, and tries every substitution they
 * list. So it is handed what waves itself honours of `paths` (paths-matcher.ts); each cut is a
 * reason to report the file as read in part.
 */
import type { ts } from 'ts-morph';
import { honouredPaths } from './paths-matcher.js';

/** `options` within waves' caps, and why they were cut (none when they were not). */
export function trimCompilerOptions(options: ts.CompilerOptions): { options: ts.CompilerOptions; notes: string[] } {
  const trimmed: ts.CompilerOptions = { ...options };
  const notes: string[] = [];
  if (options.paths !== undefined) {
    const honoured = honouredPaths(options.paths);
    trimmed.paths = honoured.paths;
    notes.push(...honoured.notes);
  }
  return { options: trimmed, notes };
}
