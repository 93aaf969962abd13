/**
 * The ignore rules of a commit, as one exclude file: the `.gitignore` files the commit holds, each
 * pattern rewritten relative to the top (`/dir/pattern`, `/dir/**\/name`), shallow files first so
 * that deeper ones win as they do in git. What a run created is then listed by the rules the run
 * started from, never by a `.gitignore` the run wrote — one that ignores itself and the files
 * beside it (`.gitignore\nevil.ts`) hid both from harvest and from the person's `git status`.
 *
 * The lines themselves are git's to parse (escapes, trailing spaces, `**`): only where a pattern
 * applies is changed, by the rule of gitignore(5) — a pattern with a slash at its start or in its
 * middle is relative to its file's folder, one without matches at any depth below it.
 */

/** A folder as the start of a pattern: git's glob characters escaped. */
function literalDir(dir: string): string {
  return dir.replace(/[\\*?[\]]/g, '\\$&');
}

/** A line without the trailing spaces git takes off (those not escaped with a backslash). */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && !(end > 1 && line[end - 2] === '\\')) end--;
  return line.slice(0, end);
}

/** One line of `dir/.gitignore` as a line of an exclude file read at the top; null for a blank line or a comment. */
export function rebaseIgnoreLine(dir: string, raw: string): string | null {
  const line = trimTrailingSpaces(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
  if (line === '' || line.startsWith('#')) return null;
  if (dir === '') return line;
  const negated = line.startsWith('!');
  const pattern = negated ? line.slice(1) : line;
  if (pattern === '' || pattern === '/') return null;
  // A trailing slash says "folders only"; it does not anchor the pattern.
  const anchored = pattern.replace(/\/+$/, '').includes('/');
  const rebased = anchored ? `/${literalDir(dir)}/${pattern.replace(/^\/+/, '')}` : `/${literalDir(dir)}/**/${pattern}`;
  return `${negated ? '!' : ''}${rebased}`;
}

/**
 * The exclude file's text for the given `.gitignore` files (path → content), in git's order of
 * precedence: the top's first, deeper folders after (a later pattern wins).
 */
export function baseExcludeText(files: ReadonlyMap<string, string>): string {
  const depth = (file: string) => file.split('/').length;
  const ordered = [...files.keys()].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
  const lines: string[] = [];
  for (const file of ordered) {
    const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
    for (const raw of files.get(file)!.split('\n')) {
      const line = rebaseIgnoreLine(dir, raw);
      if (line !== null) lines.push(line);
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
