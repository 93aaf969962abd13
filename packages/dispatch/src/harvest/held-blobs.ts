/**
 * The in-fence files of a run as verification sees them: each regular file read once into a blob
 * of the repository (`git hash-object -w --no-filters`, so the blob is the bytes read), with its
 * mode, before verification starts; read again (without writing) once it has ended. A file whose
 * blob or mode differs — something still writing in the work tree, a process the agent left — was
 * not what verification checked; the commit is built from the blobs held before, never from the
 * work tree as it is at commit time.
 */
import { execaGit } from '@waves/planner';
import { GIT_OPTIONS, git } from './git-changes.js';
import { lstatInTree } from './path-links.js';

export type HeldEntry =
  | { kind: 'file'; mode: '100644' | '100755'; sha: string }
  /** Not there (deleted, or renamed away): the commit removes it. */
  | { kind: 'gone' }
  /** A link, a FIFO, a folder: never committed from here (a link needs a person anyway). */
  | { kind: 'other' };

export type HeldFiles = Map<string, HeldEntry>;

/** Each path's entry now; with `write`, the regular files' blobs are written into the repository. */
export async function holdFiles(cwd: string, paths: readonly string[], write: boolean): Promise<HeldFiles> {
  const held: HeldFiles = new Map();
  const files: { path: string; mode: '100644' | '100755' }[] = [];
  for (const p of [...new Set(paths)].sort()) {
    const stat = await lstatInTree(cwd, p);
    if (stat === null) held.set(p, { kind: 'gone' });
    else if (!stat.isFile()) held.set(p, { kind: 'other' });
    else files.push({ path: p, mode: (stat.mode & 0o111) !== 0 ? '100755' : '100644' });
  }
  const plain = files.filter((f) => !/[\r\n]/.test(f.path));
  const flags = ['hash-object', ...(write ? ['-w'] : []), '--no-filters'];
  const hashes = plain.length === 0 ? [] : (await git(cwd, [...flags, '--stdin-paths'], `${plain.map((f) => f.path).join('\n')}\n`)).trim().split('\n');
  plain.forEach((f, i) => held.set(f.path, { kind: 'file', mode: f.mode, sha: hashes[i]! }));
  for (const odd of files.filter((f) => /[\r\n]/.test(f.path))) held.set(odd.path, { kind: 'file', mode: odd.mode, sha: (await git(cwd, [...flags, '--', odd.path])).trim() });
  return held;
}

/** The paths whose entry differs between two holds (a path missing from `now` counts as changed). */
export function changedSince(before: HeldFiles, now: HeldFiles): string[] {
  const same = (a: HeldEntry, b: HeldEntry | undefined) =>
    b !== undefined && a.kind === b.kind && (a.kind !== 'file' || (b.kind === 'file' && a.sha === b.sha && a.mode === b.mode));
  return [...before.entries()].filter(([p, entry]) => !same(entry, now.get(p))).map(([p]) => p).sort();
}

/**
 * The tree of `parent` (or of nothing) with the held entries put in, written through a temporary
 * index (GIT_INDEX_FILE): the work tree and the real index are not read.
 */
export async function treeWith(cwd: string, parent: string | null, held: HeldFiles, indexFile: string): Promise<string> {
  const env = { GIT_INDEX_FILE: indexFile };
  const run = async (args: readonly string[], input?: string) => {
    const result = await execaGit([...GIT_OPTIONS, ...args], { cwd, env, reject: false, ...(input === undefined ? { stdin: 'ignore' as const } : { input }) });
    if (result.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${(result.stderr || result.stdout).trim().split('\n')[0]}`);
    return result.stdout;
  };
  if (parent !== null) await run(['read-tree', parent]);
  else await run(['read-tree', '--empty']);
  await run(['update-index', '-z', '--index-info'], indexInfo(held, parent?.length ?? 40));
  return (await run(['write-tree'])).trim();
}

/** `git update-index --index-info` input (-z) for the held entries: a file's blob, or a removal (ids of `idLength` hex digits). */
export function indexInfo(held: HeldFiles, idLength: number, only?: ReadonlySet<string>): string {
  const ZERO = '0'.repeat(idLength);
  let out = '';
  for (const [p, entry] of held) {
    if (only && !only.has(p)) continue;
    if (entry.kind === 'file') out += `${entry.mode} ${entry.sha}\t${p}\0`;
    else if (entry.kind === 'gone') out += `0 ${ZERO}\t${p}\0`;
  }
  return out;
}
