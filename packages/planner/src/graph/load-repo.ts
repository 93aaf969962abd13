/**
 * Adapter: everything the planner needs to know about a repository, read from disk and git.
 */
import { readlink, realpath, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { FileSymbols, RepoIndex, RepoPath } from '../types.js';
import { buildRepoGraph } from './build-repo-graph.js';
import { listRepoFiles } from './list-files.js';
import { readWorkspace } from './read-workspace.js';
import { readHistoryPrior } from './read-history-prior.js';

export interface LoadRepoOptions {
  /** How the root is reported in the plan (default: as given). */
  displayRoot?: string;
  /** Use the graph cache under `.waves/cache/` (default true); `'read-only'` never writes it. */
  cache?: boolean | 'read-only';
  /** Keep the graph cache in another repository's slot (see `BuildRepoGraphOptions.cacheAt`). */
  cacheAt?: { root: string; slot: string };
  onProgress?: (done: number, total: number) => void;
  /** Read the recent history before HEAD for scope inference (default true; see read-history-prior.ts). */
  history?: boolean;
  /** Count each source file's words for scope inference in the scan (default true); without, the first inference to need them counts them (see scan-pool.ts). */
  words?: boolean;
}

/**
 * Linux pseudo file systems (statfs magic numbers): their "files" are the kernel's state, never a
 * repository, and walking them meets unreadable and endless entries.
 */
const PSEUDO_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'], [0x62656572, 'sysfs'], [0x64626720, 'debugfs'], [0x74726163, 'tracefs'], [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'], [0x73636673, 'securityfs'], [0x1cd1, 'devpts'], [0xcafe4a11, 'bpf'], [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'], [0x42494e4d, 'binfmt_misc'], [0xde5e81e4, 'efivarfs'],
]);

/** Throws `InputError` when `root` is missing, not a directory, or on a pseudo file system such as /proc. */
export async function assertDirectory(root: string): Promise<void> {
  let info;
  try {
    info = await stat(root);
  } catch {
    throw new InputError(`root ${root}: no such directory`);
  }
  if (!info.isDirectory()) throw new InputError(`root ${root}: not a directory`);
  // The kernel's devices and state: /dev is a tmpfs like /tmp to statfs, and so are mounts under
  // /sys (/sys/fs/cgroup): named by where they are too.
  const real = await realpath(root).catch(() => path.resolve(root));
  for (const [top, what] of [['/dev', "the system's devices"], ['/sys', "the kernel's state"], ['/proc', "the kernel's state"]] as const) {
    if (real === top || real.startsWith(`${top}/`)) throw new InputError(`root ${root}: ${what} (${real}), not a repository`);
  }
  if (process.platform !== 'linux') return; // the magic numbers are Linux's
  const type = await statfs(root).then((fs) => fs.type, () => null);
  const pseudo = type === null ? undefined : PSEUDO_FILE_SYSTEMS.get(type);
  if (pseudo) throw new InputError(`root ${root}: a ${pseudo} file system (the kernel's state), not a repository`);
}

/**
 * The symbolic links that lead outside the root (or nowhere, towards outside): a fence
 * naming one would send an agent's writes out of the repository.
 */
async function linksLeadingOut(root: string, links: readonly RepoPath[]): Promise<RepoPath[]> {
  if (links.length === 0) return [];
  const realRoot = await realpath(root).catch(() => root);
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
  const out: RepoPath[] = [];
  for (const link of links) {
    const at = path.join(realRoot, link);
    const real = await realpath(at).catch(async () => {
      // Dangling: where it would lead, were its target created.
      const target = await readlink(at).catch(() => null);
      return target === null ? null : path.resolve(path.dirname(at), target);
    });
    if (real === null || !inside(real)) out.push(link);
  }
  return out;
}

export async function loadRepo(root: string, options: LoadRepoOptions = {}): Promise<RepoIndex> {
  await assertDirectory(root);
  const absRoot = path.resolve(root);
  const listing = await listRepoFiles(absRoot);
  const workspace = await readWorkspace(absRoot, listing.files);
  let readSymbols: (() => ReadonlyMap<string, FileSymbols>) | undefined;
  const graph = await buildRepoGraph(absRoot, {
    onSymbols: (read) => {
      readSymbols = read;
    },
    files: listing.files,
    blobIds: listing.blobIds,
    ...(listing.unnamed ? { unnamed: listing.unnamed } : {}),
    members: workspace.members,
    workspaceProblems: workspace.problems,
    cache: options.cache ?? true,
    ...(options.words === false ? { words: false } : {}),
    ...(options.cacheAt ? { cacheAt: options.cacheAt } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const history = options.history === false || !listing.git ? null : await readHistoryPrior(absRoot, { ...(listing.head ? { commit: listing.head } : {}), cacheRoot: options.cacheAt ? path.resolve(options.cacheAt.root) : absRoot, cache: (options.cache ?? true) === true });
  return {
    root: options.displayRoot ?? root,
    head: listing.head,
    files: listing.files,
    packages: workspace.members.map(({ name, dir }) => ({ name, dir })),
    graph,
    ...(await linksLeadingOut(absRoot, listing.links ?? []).then((out) => (out.length > 0 ? { linksOut: out } : {}))),
    ...(readSymbols ? { readSymbols } : {}),
    ...(history ? { history } : {}),
  };
}
