/**
 * What TypeScript's fallback is handed of the repository's configuration. Its resolver walks a
 * tsconfig's `paths` and `rootDirs`, and a package's `typesVersions`, again for every specifier it
 * is asked, and tries every substitution and folder they list (20,000 `rootDirs` and 50 relative
 * imports took 3.6 s and 800 MB). So it is handed what waves itself honours of `paths`
 * (paths-matcher.ts) and the first `MAX_ROOT_DIRS` of `rootDirs`; a manifest whose
 * `typesVersions` go past those caps is not shown to it at all (module-resolver.ts). Each cut is
 * a reason to report the file as read in part.
 */
import type { ts } from 'ts-morph';
import { honouredPaths } from './paths-matcher.js';

/** The `rootDirs` honoured: each relative import is tried under every one; real projects list two or three. */
export const MAX_ROOT_DIRS = 16;

/** `options` within waves' caps, and why they were cut (none when they were not). */
export function trimCompilerOptions(options: ts.CompilerOptions): { options: ts.CompilerOptions; notes: string[] } {
  const trimmed: ts.CompilerOptions = { ...options };
  const notes: string[] = [];
  if (options.paths !== undefined) {
    const honoured = honouredPaths(options.paths);
    trimmed.paths = honoured.paths;
    notes.push(...honoured.notes);
  }
  const rootDirs = options.rootDirs;
  if (Array.isArray(rootDirs) && rootDirs.length > MAX_ROOT_DIRS) {
    trimmed.rootDirs = rootDirs.slice(0, MAX_ROOT_DIRS);
    notes.push(`read in part: its rootDirs hold ${rootDirs.length.toLocaleString('en-US')} folders, past the first ${MAX_ROOT_DIRS} ignored`);
  }
  return { options: trimmed, notes };
}

const typesVersionsNotesOf = new WeakMap<object, string[]>();

/**
 * Why a manifest's `typesVersions` (version ranges, each a `paths` map) go past what waves honours
 * of `paths`; none when they do not. Read once per manifest object.
 */
export function typesVersionsNotes(typesVersions: unknown): string[] {
  if (!typesVersions || typeof typesVersions !== 'object') return [];
  const known = typesVersionsNotesOf.get(typesVersions);
  if (known) return known;
  const notes = new Set<string>();
  for (const range of Object.values(typesVersions as Record<string, unknown>)) for (const note of honouredPaths(range, 'typesVersions').notes) notes.add(note);
  const result = [...notes];
  typesVersionsNotesOf.set(typesVersions, result);
  return result;
}
