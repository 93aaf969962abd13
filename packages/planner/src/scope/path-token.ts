/**
 * One whitespace-separated token of an issue, as a path: trimmed of the punctuation prose puts
 * around it, split from its line anchor (`x.ts:12-40`, `x.ts#L12`), and checked — a repository
 * path, something that would leave the repository (reported, never followed), or not a path.
 */

/** Longer tokens are data, not paths. */
export const MAX_TOKEN = 1024;

export interface LineRange {
  start: number;
  end: number;
}

/** Extensions that make a bare word (no slash) a file name rather than `object.property`. */
const FILE_EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonc json5 md mdx markdown txt rst adoc yaml yml toml ini cfg conf xml ' +
    'html htm css scss sass less styl vue svelte astro go mod sum rs py pyi rb java kt kts scala swift c h cc cpp cxx hpp hh ' +
    'cs fs php pl lua sh bash zsh fish ps1 bat sql graphql gql proto prisma tf hcl lock gradle properties ' +
    'csv tsv svg png jpg jpeg gif webp ico wasm snap dockerfile makefile props targets csproj fsproj vbproj nix'
  ).split(' '),
);

/** Splits `path:12`, `path:12-40`, `path:12:5`, `path#L12-L40` into the path and its lines. */
export function splitAnchor(token: string): { path: string; lines: LineRange | null } {
  const hash = /^(.*?)#L(\d+)(?:C\d+)?(?:-L?(\d+)(?:C\d+)?)?$/.exec(token);
  if (hash) {
    const start = Number(hash[2]);
    return { path: hash[1]!, lines: { start, end: hash[3] ? Number(hash[3]) : start } };
  }
  const colon = /^(.*?):(\d+)(?:[-–:](\d+))?$/.exec(token);
  if (colon && colon[1]!.length > 0) {
    const start = Number(colon[2]);
    // `file:12:5` is line 12, column 5; `file:12-40` a range.
    const isRange = token.includes('-') || token.includes('–');
    const end = colon[3] && isRange ? Number(colon[3]) : start;
    return { path: colon[1]!, lines: { start, end: Math.max(start, end) } };
  }
  return { path: token, lines: null };
}

const LEADING_JUNK = /^(?:[({<'"*]|~~)+/;

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n++;
  return n;
}

/** Drops closing brackets that close nothing inside the token (`(see a/b.ts)` → `a/b.ts`; `app/[id]` stays). Linear: counted once. */
function balance(token: string): string {
  let round = count(token, ')') - count(token, '(');
  let square = count(token, ']') - count(token, '[');
  let end = token.length;
  for (;;) {
    const last = token[end - 1];
    if (last === ')' && round > 0) round--;
    else if (last === ']' && square > 0) square--;
    else break;
    end--;
  }
  return token.slice(0, end);
}

/** Takes off trailing quotes, closers, emphasis and punctuation (`"`, `'`, `}`, `>`, `*`, `_`, `,`, `;`, `!`, `?`, `~~`): one pass from the end. */
function trimTrailingJunk(token: string): string {
  let end = token.length;
  for (;;) {
    const c = token[end - 1];
    if (c !== undefined && `"'}>*_,;!?`.includes(c)) end--;
    else if (c === '~' && token[end - 2] === '~') end -= 2;
    else break;
  }
  return token.slice(0, end);
}

/** Underscores that open markdown emphasis (`__x__`, `_x_`): only when the token closes it too (`__tests__/x.ts` keeps its name). */
function emphasisUnderscores(token: string): string {
  const open = /^_+/.exec(token)?.[0] ?? '';
  if (open === '') return token;
  // The token's last run of underscores, after which only closers and punctuation follow (one pass from the end).
  let end = token.length;
  while (end > 0 && `)]"'}>*,;:!?.`.includes(token[end - 1]!)) end--;
  let start = end;
  while (start > 0 && token[start - 1] === '_') start--;
  return end - start >= open.length ? token.slice(open.length) : token;
}

export function trimToken(token: string): string {
  const t = balance(trimTrailingJunk(emphasisUnderscores(token.replace(LEADING_JUNK, ''))));
  // A sentence-ending period or colon, but not `./` or a lone `..`.
  let end = t.length;
  while (end > 1 && (t[end - 1] === '.' || t[end - 1] === ':') && !(t[end - 1] === '.' && t[end - 2] === '.')) end--;
  return balance(trimTrailingJunk(t.slice(0, end)));
}

export type PathCheck =
  | { kind: 'path'; path: string; directory: boolean }
  /** `./`, `/` or `.`: the repository root itself (a bare `/` is the root, not the file system's). */
  | { kind: 'root' }
  | { kind: 'unsafe'; reason: string }
  | { kind: 'not-a-path' };

/**
 * Decides whether a cleaned token names a repository path, and normalises it. Anything that would
 * leave the root — absolute, home-relative, drive letters, `..` segments — is unsafe: it is never
 * resolved or read, only reported. The root itself, written alone, is `root`: what it stands for
 * is the caller's to decide (a lone `/` in prose is usually punctuation).
 */
export function checkPathToken(token: string, strong: boolean): PathCheck {
  if (token.length === 0 || token.length > MAX_TOKEN) return { kind: 'not-a-path' };
  if (token === './' || token === '/' || token === '.') return { kind: 'root' };
  // Control characters, whitespace and shell/glob-ish punctuation are never part of a path we take.
  // Route folders (`app/(group)/[slug]/page.tsx`, `routes/posts.$id.tsx`) keep their brackets and dollars.
  if (/[\u0000-\u001f\u007f\s`|<>"'{}\\^]/.test(token) && !/^[A-Za-z]:\\/.test(token)) return { kind: 'not-a-path' };
  if (/[()$[\]]/.test(token) && !token.includes('/')) return { kind: 'not-a-path' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(token) || token.startsWith('//')) return { kind: 'not-a-path' };
  if (token.startsWith('-') || token.startsWith('#') || token.startsWith('@@')) return { kind: 'not-a-path' };
  if (/^\d+(?:\.\d+)*$/.test(token) || /^v\d+(?:\.\d+)+/.test(token)) return { kind: 'not-a-path' };

  const looksLikePath = token.includes('/') || hasFileExtension(token, strong) || /^\.[\w.-]+$/.test(token);
  if (!looksLikePath) return { kind: 'not-a-path' };
  if (/^[A-Za-z]:[\\/]/.test(token) || token.startsWith('\\\\')) return { kind: 'unsafe', reason: 'absolute path' };
  if (token.startsWith('~')) return { kind: 'unsafe', reason: 'home-relative path' };
  if (token.startsWith('/')) return { kind: 'unsafe', reason: 'absolute path' };
  const directory = token.endsWith('/');
  const segments = token.split('/').filter((s) => s.length > 0 && s !== '.');
  if (segments.some((s) => s === '..')) return { kind: 'unsafe', reason: 'path leaves the repository (..)' };
  if (segments.length === 0) return { kind: 'not-a-path' };
  if (segments.some((s) => /^\.{3,}$/.test(s) || s.includes('*') || s.includes('?'))) return { kind: 'not-a-path' };
  // Names no one types for a real file: control and invisible characters (a fence that prints as
  // nothing), percent-escapes and look-alike dots (`%2e%2e`, `．．`), a shell variable (`$HOME`).
  if (segments.some((s) => /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/.test(s))) return { kind: 'not-a-path' };
  if (segments.some((s) => /%[0-9a-f]{2}/i.test(s) || /^[.\uff0e\u3002\u2024\u2025\u2026\ufe52]+$/.test(s) || s.startsWith('$'))) return { kind: 'not-a-path' };
  const off = notRepositoryFiles(segments);
  if (off !== null) return { kind: 'unsafe', reason: off };
  // `@scope/name` alone is a package name, kept (resolution maps it to the package's directory).
  return { kind: 'path', path: segments.join('/'), directory };
}

/**
 * Whether a word of prose reads as a file path: a folder and a file name with a known extension
 * (`packages/api/src/x.ts`, not `and/or` nor `v1.2/v1.3`). Such a word still counts only when the
 * repository has that file.
 */
export function looksLikeFilePath(cleaned: string): boolean {
  const slash = cleaned.indexOf('/');
  return slash > 0 && slash < cleaned.length - 1 && !cleaned.includes('//') && hasFileExtension(cleaned, false);
}

/**
 * Why a path inside the root is still not the repository's own files — git's own directory (any
 * case: some file systems fold it), installed packages, waves' own state — or null. Such a path is
 * never a fence, whatever names it (a code span, a link, a URL).
 */
export function notRepositoryFiles(segments: readonly string[]): string | null {
  if (segments.some((s) => s.toLowerCase() === '.git')) return "inside git's own directory (.git)";
  if (segments.includes('node_modules')) return 'inside installed packages (node_modules)';
  if (segments[0] === '.waves' || segments[0] === '.dispatch-runs') return `inside waves' own state (${segments[0]})`;
  return null;
}

function hasFileExtension(token: string, strong: boolean): boolean {
  const base = token.slice(token.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) return /^(?:Makefile|GNUmakefile|Dockerfile|LICENSE|Procfile|Gemfile|Rakefile|Justfile|justfile|Jenkinsfile|gradlew|mvnw)$/.test(base);
  const ext = base.slice(dot + 1).toLowerCase();
  if (!/^[a-z][a-z0-9]{0,9}$/.test(ext)) return false;
  if (FILE_EXTENSIONS.has(ext)) return true;
  // A slash makes `dir/name.ext` a path whatever the extension; without one, `a.b` is usually code.
  return strong && token.includes('/');
}
