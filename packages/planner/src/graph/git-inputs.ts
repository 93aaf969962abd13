/**
 * The files git opens with a plain open() in a work tree that an agent can replace: a FIFO (or a
 * device) there blocks git for good (red team 3, finding 9). Checked before git runs, so the
 * common cases fail at once with one line; the deadline of git-run.ts stands for the rest.
 *
 * - `.gitignore`, `.gitattributes` at the root of the work tree and in the given directories
 *   (and every directory between them and the root);
 * - in the git dir: `info/exclude`, `info/attributes`, `config`, the worktrees' `config.worktree`;
 * - every file those configs include (`path = …` lines, read as text), and the ones they include.
 *
 * With `deep`, every `.gitignore` and `.gitattributes` under the folders (but `.git` and
 * `node_modules`), as git's listing of untracked files reads them.
 *
 * A file absent, a regular file or a folder is fine (git reads a folder as nothing); anything
 * else is named. Links are followed, as git follows them.
 */
import { lstat, opendir, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { readRegularFile } from './read-regular-file.js';

const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
const MAX_INCLUDE_DEPTH = 10;

/** What a path is when it is none of: absent, a regular file, a folder. */
async function blockingKind(file: string, follow = true): Promise<string | null> {
  const info = await (follow ? stat(file) : lstat(file)).catch(() => null);
  if (info === null || info.isFile() || info.isDirectory() || info.isSymbolicLink()) return null;
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The git dir and the common git dir of a work tree, read from its `.git` (a folder, or a file pointing at one). */
async function gitDirsOf(root: string): Promise<{ gitDir: string; common: string } | null> {
  const dot = path.join(root, '.git');
  const info = await stat(dot).catch(() => null);
  if (info === null) return null;
  if (info.isDirectory()) return { gitDir: dot, common: dot };
  const read = await readRegularFile(dot, { maxBytes: 64 * 1024, followLinks: true });
  const pointer = read.ok ? /^gitdir: *(.+?)\s*$/m.exec(read.text) : null;
  if (!pointer) return null;
  const gitDir = path.resolve(root, pointer[1]!);
  const commonRead = await readRegularFile(path.join(gitDir, 'commondir'), { maxBytes: 64 * 1024, followLinks: true });
  const common = commonRead.ok && commonRead.text.trim() !== '' ? path.resolve(gitDir, commonRead.text.trim()) : gitDir;
  return { gitDir, common };
}

/**
 * The files a config file includes (`path = …` in any section: include and includeIf alike), as
 * git resolves them. Read as git reads a config, in one pass over the text: a key may follow its
 * section header on the same line (`[include] path = x`), a backslash before the line feed
 * continues a value, quotes and escapes (`\"`, `\\`, `\t`, `\n`) are git's, and `#` or `;`
 * outside quotes begins a comment. (A regular expression here ran in quadratic time on a line of
 * 150,000 blanks: 85 s, before any git and in every command.)
 */
function includedPaths(configFile: string, text: string): string[] {
  const found: string[] = [];
  const n = text.length;
  const isKeyChar = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 45;
  const toLineEnd = (from: number) => {
    const feed = text.indexOf('\n', from);
    return feed < 0 ? n : feed + 1;
  };
  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
    } else if (c === '#' || c === ';') {
      i = toLineEnd(i);
    } else if (c === '[') {
      // The section header, up to its `]` (a quoted subsection may hold one); a key may follow.
      let quoted = false;
      for (i++; i < n && text[i] !== '\n'; i++) {
        if (quoted && text[i] === '\\') i++;
        else if (text[i] === '"') quoted = !quoted;
        else if (!quoted && text[i] === ']') {
          i++;
          break;
        }
      }
    } else if (!isKeyChar(c.charCodeAt(0))) {
      i = toLineEnd(i);
    } else {
      const keyStart = i;
      while (i < n && isKeyChar(text.charCodeAt(i))) i++;
      const key = text.slice(keyStart, i).toLowerCase();
      while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
      if (text[i] !== '=') {
        // A key with no value (true), or text git would refuse: the rest of the line is not a value.
        i = toLineEnd(i);
        continue;
      }
      let value = '';
      let quoted = false;
      for (i++; i < n; ) {
        const ch = text[i]!;
        if (ch === '\n') break;
        if (ch === '\\') {
          const next = text[i + 1];
          if (next === '\n') i += 2;
          else if (next === '\r' && text[i + 2] === '\n') i += 3;
          else {
            value += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : (next ?? '');
            i += 2;
          }
        } else if (ch === '"') {
          quoted = !quoted;
          i++;
        } else if (!quoted && (ch === '#' || ch === ';')) {
          const feed = text.indexOf('\n', i);
          i = feed < 0 ? n : feed;
        } else {
          value += ch;
          i++;
        }
      }
      value = value.trim();
      if (key !== 'path' || value === '') continue;
      if (value.startsWith('~/')) value = path.join(homedir(), value.slice(2));
      found.push(path.resolve(path.dirname(configFile), value));
    }
  }
  return found;
}

const IGNORE_AND_ATTRIBUTES = new Set(['.gitignore', '.gitattributes']);
/** Folders git does not enter or that are not the repository's own: never walked. */
const NOT_WALKED = new Set(['.git', 'node_modules']);
const MAX_WALKED = 200_000;

/** The first `.gitignore` or `.gitattributes` under `dir` (deep) that is no file nor folder. */
async function walkProblem(dir: string, budget: { left: number }): Promise<{ file: string; kind: string } | null> {
  const stack = [dir];
  while (stack.length > 0 && budget.left > 0) {
    const current = stack.pop()!;
    const handle = await opendir(current).catch(() => null);
    if (handle === null) continue;
    for await (const entry of handle) {
      if (--budget.left <= 0) break;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!NOT_WALKED.has(entry.name)) stack.push(full);
      } else if (IGNORE_AND_ATTRIBUTES.has(entry.name) && !entry.isFile()) {
        const kind = await blockingKind(full, false);
        if (kind !== null) return { file: full, kind };
      }
    }
  }
  return null;
}

/**
 * The first file git would open in `root` that is a FIFO, a socket or a device, said in one
 * line; null when there is none. `dirs`: folders of the work tree (relative) whose ignore and
 * attribute files git reads too — an agent's fence.
 */
export async function gitInputProblem(root: string, dirs: readonly string[] = [], options: { deep?: boolean } = {}): Promise<string | null> {
  const say = (file: string, kind: string, what: string) =>
    `${file} is ${kind}, not a file: git would block reading it (${what}); remove it (or make it a regular file) before waves runs git there`;
  if (options.deep) {
    // Every folder git walks for untracked files reads its ignore rules (a harvest's listing).
    const budget = { left: MAX_WALKED };
    for (const dir of dirs.length > 0 ? dirs : ['']) {
      const found = await walkProblem(path.join(root, dir), budget);
      if (found !== null) return say(found.file, found.kind, `its ${path.basename(found.file) === '.gitignore' ? 'ignore rules' : 'attributes'}`);
    }
  }
  const folders = new Set<string>(['']);
  for (const dir of dirs) {
    const parts = dir.split('/').filter((p) => p !== '' && p !== '.');
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  for (const folder of folders) {
    for (const name of ['.gitignore', '.gitattributes']) {
      const file = path.join(root, folder, name);
      // git opens these with O_NOFOLLOW (2.32 and later): a link there — to /dev/null, a FIFO — is never read.
      const kind = await blockingKind(file, false);
      if (kind !== null) return say(file, kind, `its ${name === '.gitignore' ? 'ignore rules' : 'attributes'}`);
    }
  }
  const dirsOf = await gitDirsOf(root);
  if (dirsOf === null) return null;
  const { gitDir, common } = dirsOf;
  for (const file of [path.join(common, 'info', 'exclude'), path.join(common, 'info', 'attributes')]) {
    const kind = await blockingKind(file);
    if (kind !== null) return say(file, kind, 'part of the git dir');
  }
  const configs = [path.join(common, 'config'), path.join(gitDir, 'config.worktree')];
  const worktrees = await readdir(path.join(common, 'worktrees')).catch(() => [] as string[]);
  for (const name of worktrees) configs.push(path.join(common, 'worktrees', name, 'config.worktree'));
  const seen = new Set<string>();
  let queue = configs.map((file) => ({ file, includedBy: null as string | null }));
  for (let depth = 0; depth <= MAX_INCLUDE_DEPTH && queue.length > 0; depth++) {
    const next: typeof queue = [];
    for (const { file, includedBy } of queue) {
      if (seen.has(file)) continue;
      seen.add(file);
      const kind = await blockingKind(file);
      if (kind !== null) {
        if (includedBy === null) return say(file, kind, 'a git config file');
        return `${file} is ${kind}, not a file: git would block reading it (included by ${includedBy}); remove the include from that file by hand (git config would block too), or the FIFO, before waves runs git there`;
      }
      const read = await readRegularFile(file, { maxBytes: MAX_CONFIG_BYTES, followLinks: true });
      if (!read.ok) continue;
      for (const included of includedPaths(file, read.text)) next.push({ file: included, includedBy: file });
    }
    queue = next;
  }
  return null;
}
