/**
 * Adapter: builds the file-level import graph of a repository. Each changed source file is read
 * once and scanned (`scanImports`, on every core for a large cold build), each specifier resolved
 * (`ModuleResolver`), and the result kept in a graphology directed graph — one node per source
 * file and per imported JSON file, one edge per importing pair with the kinds of import — and in
 * the cache under `.waves/cache/`, so that a re-run with nothing changed neither reads nor parses nor loads
 * TypeScript, and a change re-scans only the files whose content changed and re-resolves only
 * what the change can affect.
 */
import path from 'node:path';
import { DirectedGraph } from 'graphology';
import { baseName, parentDir } from '../paths/repo-paths.js';
import type { FileNodeAttributes, FileSymbols, ImportKind, RepoGraph, RepoPath, SkippedFile, UnresolvedImport, WorkspacePackage } from '../types.js';
import { contentId, EXTERNAL, isContentOf, GRAPH_CACHE_TOOL, GRAPH_CACHE_VERSION, readGraphCache, UNRESOLVED, writeGraphCache, type CachedFile, type GraphCache } from './graph-cache.js';
import { listRepoFiles } from './list-files.js';
import { MAX_SOURCE_BYTES, repoFileReader } from './read-repo-file.js';
import { decodeSource, readRegularFileSync } from './read-regular-file.js';
import { isJsonModule, isSourceFile } from './graph-files.js';
import { ModuleResolver, type Resolved } from './module-resolver.js';
import { readWorkspace, type WorkspaceMember, type WorkspaceProblem } from './read-workspace.js';
import { scanFiles, type ScanJob, type ScanOptions } from './scan-pool.js';
import { scanSymbols } from './scan-symbols.js';
import { packEntry, readSymbolsCache, unpackEntry, writeSymbolsCache, type SymbolsEntries } from './symbols-cache.js';
import { contentWords, packWords } from './text-tokens.js';

/** Strongest first: the edge's `kind` is the first of these among its kinds. */
export const IMPORT_KIND_ORDER: readonly ImportKind[] = ['static', 'reexport', 'require', 'dynamic', 'type'];

export interface BuildRepoGraphOptions extends ScanOptions {
  /** The repository's files (default: listed with git, or walked). */
  files?: readonly RepoPath[];
  /** Git blob ids of files whose content matches them (default: from the listing). */
  blobIds?: ReadonlyMap<RepoPath, string>;
  /** Files the listing could not name (not valid UTF-8): reported as skipped. */
  unnamed?: readonly string[];
  /** Its workspace packages with their manifests (default: read from its configuration). */
  members?: readonly WorkspaceMember[];
  /** Manifests the workspace could not read (with `members`; read here otherwise): reported as skipped. */
  workspaceProblems?: readonly WorkspaceProblem[];
  /** Use and update the cache under `<root>/.waves/cache/` (default true); `'read-only'` uses it without writing. */
  cache?: boolean | 'read-only';
  /**
   * Keep the cache in another repository's `.waves/cache/`, in a slot of its own (`waves backtest`:
   * the graph of a past commit, checked out in a temporary worktree, cached by the repository it
   * came from). When the slot has no cache yet, the main cache's scanned imports seed it (they are
   * keyed by blob id, the same in every checkout); their resolutions are redone, since they were
   * made against another checkout's files and configuration.
   */
  cacheAt?: { root: string; slot: string };
  /** Called now and then with the number of source files done and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Receives a reader of the names each source file declares, its message literals and the
   * third-party packages it imports (scope inference). Nothing is read until it is called: the
   * symbols cache (symbols-cache.ts) is read then, the files it lacks scanned (only those), and
   * the cache updated; the first call's map is kept for the next.
   */
  onSymbols?: (read: () => ReadonlyMap<RepoPath, FileSymbols>) => void;
  /** Receives what the build did, for benchmarks and `waves graph`. */
  onStats?: (stats: GraphBuildStats) => void;
}

export interface GraphBuildStats {
  sources: number;
  /** Files whose imports were scanned (the others came from the cache). */
  scanned: number;
  /** Specifiers resolved (the others came from the cache). */
  resolved: number;
  cache: 'none' | 'cold' | 'warm' | 'rebuilt';
  /** Threads that scanned (1 = the main thread alone). */
  threads: number;
}

export interface FileImports {
  /** Resolved targets with their kinds. */
  targets: { to: RepoPath; kind: ImportKind }[];
  unresolved: string[];
  external: number;
}

/**
 * Assembles the graph from per-file imports (and the files the build refused to read, with why):
 * a node per source file, and per JSON file some source imports (only those: the graph's JSON
 * nodes are what an import makes depend on them, not every data file of the repository).
 */
export function assembleGraph(
  sources: readonly RepoPath[],
  packages: readonly WorkspacePackage[],
  importsOf: (file: RepoPath) => FileImports | undefined,
  skipped: readonly SkippedFile[] = [],
): RepoGraph {
  const graph: RepoGraph = new DirectedGraph<FileNodeAttributes>() as RepoGraph;
  const pkgDirs = new Map(packages.map((p) => [p.dir, p.name]));
  const packageOf = (file: RepoPath): string | null => {
    let dir = parentDir(file);
    for (;;) {
      const name = pkgDirs.get(dir);
      if (name !== undefined) return name;
      if (dir === '') return null;
      dir = parentDir(dir);
    }
  };
  const nodes = new Set(sources);
  const unresolved: UnresolvedImport[] = [];
  let external = 0;
  // Merge the kinds of repeated imports of one target before touching the graph.
  const edges: [RepoPath, Map<RepoPath, ImportKind[]>][] = [];
  const json = new Set<RepoPath>();
  for (const file of sources) {
    const imports = importsOf(file);
    if (!imports) continue;
    external += imports.external;
    for (const specifier of imports.unresolved) unresolved.push({ from: file, specifier });
    const byTarget = new Map<RepoPath, ImportKind[]>();
    for (const { to, kind } of imports.targets) {
      if (to === file) continue;
      if (!nodes.has(to)) {
        if (!isJsonModule(to)) continue;
        json.add(to);
      }
      const kinds = byTarget.get(to);
      if (!kinds) byTarget.set(to, [kind]);
      else if (!kinds.includes(kind)) kinds.push(kind);
    }
    edges.push([file, byTarget]);
  }
  for (const file of sources) graph.addNode(file, { package: packageOf(file), dir: parentDir(file) });
  for (const file of [...json].sort()) graph.addNode(file, { package: packageOf(file), dir: parentDir(file) });
  for (const [file, byTarget] of edges) {
    for (const [to, kinds] of byTarget) {
      if (kinds.length > 1) kinds.sort((a, b) => IMPORT_KIND_ORDER.indexOf(a) - IMPORT_KIND_ORDER.indexOf(b));
      graph.addDirectedEdgeWithKey(`${file}>${to}`, file, to, { kind: kinds[0]!, kinds });
    }
  }
  graph.replaceAttributes({ unresolved, external, skipped: [...skipped].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)) });
  return graph;
}

/** Files whose content decides how specifiers resolve. */
function isConfigFile(file: RepoPath): boolean {
  const base = baseName(file);
  return base === 'package.json' || base === 'pnpm-workspace.yaml' || /^[tj]sconfig.*\.json$/.test(base);
}

function hashOf(parts: readonly string[]): string {
  return contentId(parts.join('\0'));
}

function toTarget(resolved: Resolved): string {
  return resolved.kind === 'file' ? resolved.path : resolved.kind === 'external' ? EXTERNAL : UNRESOLVED;
}

/** A module name without its extension: `util.ts`, `util.d.ts` and `util.js` all name `util`. */
function stemOf(name: string): string {
  return name.replace(/\.d\.[mc]?ts$/, '').replace(/\.(?:[mc]?[tj]sx?|json)$/, '');
}

/**
 * The names a bare specifier could reach the added files by: each file's stem, and for an index
 * file its folder's name (`helpers/x/index.ts` answers to `…/x`).
 */
function addedStems(added: readonly RepoPath[]): Set<string> {
  const stems = new Set<string>();
  for (const file of added) {
    const stem = stemOf(baseName(file));
    stems.add(stem);
    if (stem === 'index') stems.add(baseName(parentDir(file)));
  }
  return stems;
}

/**
 * Whether a specifier resolved against an older file list must be resolved again: it failed,
 * its target is gone, or a file was added or removed where it could take precedence — next to
 * the target or the path the specifier names (`x.ts` over `x/index.ts`, `.ts` over `.js`) — or,
 * for a bare specifier (an alias, a `baseUrl` path, a package import), a file was added whose
 * name its last segment names: an alias with several fallback locations (`"@x/*": ["a/*",
 * "b/*"]`) or `baseUrl` can make it win from anywhere in the tree.
 */
function mustReresolve(
  from: RepoPath,
  specifier: string,
  target: string,
  changes: { dirs: ReadonlySet<RepoPath>; removed: ReadonlySet<RepoPath>; stems: ReadonlySet<string> },
): boolean {
  if (changes.dirs.size === 0) return false; // the same files: nothing can resolve differently
  if (target === UNRESOLVED) return true;
  if (target !== EXTERNAL) {
    if (changes.removed.has(target)) return true;
    const dir = parentDir(target);
    if (changes.dirs.has(dir) || changes.dirs.has(parentDir(dir))) return true;
  }
  if (specifier.startsWith('.')) {
    const named = path.posix.normalize(path.posix.join(parentDir(from), specifier));
    if (changes.dirs.has(named) || changes.dirs.has(parentDir(named))) return true;
  } else if (changes.stems.size > 0 && changes.stems.has(stemOf(specifier.slice(specifier.lastIndexOf('/') + 1)))) return true;
  return false;
}

/** The main cache of a repository as the seed of a slot: its scanned imports, none of its resolutions. */
async function seedFrom(root: string, tool: string): Promise<GraphCache | null> {
  const seed = await readGraphCache(root, tool);
  return seed ? { ...seed, configKey: '', extraConfigs: {} } : null;
}

/**
 * The symbols of every source file the graph holds: scanned in this build, else from the symbols
 * cache under the same content id, else read now (through the same guarded reader as the scan)
 * and scanned; the cache is updated when anything was new. The third-party packages each file
 * imports come from its resolved imports.
 */
function readSymbols(at: {
  absRoot: string;
  cacheRoot: string;
  slot: string | undefined;
  sources: readonly RepoPath[];
  entries: Record<RepoPath, CachedFile>;
  fresh: SymbolsEntries;
  allFresh: boolean;
  useCache: boolean;
  writeCache: boolean;
  maxSourceBytes: number | undefined;
}): ReadonlyMap<RepoPath, FileSymbols> {
  const { entries, fresh } = at;
  // A slot without symbols yet is seeded from the main cache: entries are keyed by content id.
  const cached = at.allFresh || !at.useCache ? null : (readSymbolsCache(at.cacheRoot, at.slot) ?? (at.slot ? readSymbolsCache(at.cacheRoot) : null));
  const kept: SymbolsEntries = {};
  // Nothing to build on: whatever this call finds is new.
  let changed = cached === null;
  let reader: ReturnType<typeof repoFileReader> | null = null;
  const symbols = new Map<RepoPath, FileSymbols>();
  for (const file of at.sources) {
    const entry = entries[file];
    if (!entry) continue;
    const old = cached !== null && Object.hasOwn(cached, entry.id) ? cached[entry.id] : undefined;
    let packed = fresh[entry.id] ?? old;
    // Words counted already (by an earlier plan) beat a fresh scan that left them out.
    if (packed !== undefined && packed.length === 2 && old?.length === 3) packed = old;
    if (packed === undefined || packed.length === 2) {
      reader ??= repoFileReader(at.absRoot, at.maxSourceBytes);
      const read = reader.read(file);
      // What is read now must be the content the listing named: a file changed since, a folder
      // swapped for a link out of the repository, a skip-worktree file whose tree git does not
      // compare — none of it is kept under that id.
      if (read.ok && isContentOf(read.content, entry.id)) {
        const text = decodeSource(read.content);
        if (packed === undefined) {
          const scanned = scanSymbols(text);
          packed = packEntry(scanned.names, scanned.literals, scanned.words);
        } else packed = [packed[0], packed[1], packWords(contentWords(text))]; // the names and literals are known: only the words
        changed = true;
      } else if (packed === undefined) continue; // gone or refused since the build: nothing to say about it
      // else unreadable now (a sparse checkout, a file gone): its names and literals stand, without words.
    }
    if (old === undefined) changed = true;
    kept[entry.id] = packed;
    // The third-party packages it imports (`is-wsl`, `@scope/name`): an issue naming one points here.
    const packages = new Set<string>();
    entry.imports.forEach(([specifier], i) => {
      if (entry.targets[i] !== EXTERNAL || specifier.startsWith('.') || specifier.startsWith('node:')) return;
      const parts = specifier.split('/');
      packages.add(specifier.startsWith('@') && parts.length > 1 ? `${parts[0]}/${parts[1]}` : parts[0]!);
    });
    if (packed[0] !== '' || packed[1] !== '' || (packed[2] ?? '') !== '' || packages.size > 0) symbols.set(file, { ...unpackEntry(packed), packages: [...packages] });
  }
  // Stale entries (files gone or changed) are dropped with the rewrite.
  if (at.writeCache && !at.allFresh && (changed || (cached !== null && Object.keys(cached).length !== Object.keys(kept).length))) writeSymbolsCache(at.cacheRoot, kept, at.slot);
  return symbols;
}

/** Builds the import graph of the repository at `root`. */
export async function buildRepoGraph(root: string, options: BuildRepoGraphOptions = {}): Promise<RepoGraph> {
  const absRoot = path.resolve(root);
  let files = options.files;
  let blobIds = options.blobIds;
  let unnamed = options.unnamed ?? [];
  if (!files) {
    const listing = await listRepoFiles(absRoot);
    files = listing.files;
    blobIds ??= listing.blobIds;
    unnamed = listing.unnamed ?? [];
  }
  const workspace = options.members ? { members: options.members, problems: options.workspaceProblems ?? [] } : await readWorkspace(absRoot, files);
  const members = workspace.members;
  const sources = files.filter(isSourceFile);
  const useCache = options.cache !== false;
  const writeCache = (options.cache ?? true) === true;
  const tool = GRAPH_CACHE_TOOL;
  const cacheRoot = options.cacheAt ? path.resolve(options.cacheAt.root) : absRoot;
  const slot = options.cacheAt?.slot;
  const previous = useCache ? ((await readGraphCache(cacheRoot, tool, slot)) ?? (slot ? await seedFrom(cacheRoot, tool) : null)) : null;

  // Content ids: git blob ids where the file is clean, else hashed from the content (read once,
  // and only what the repository holds: see read-repo-file.ts; what is refused is reported).
  const reader = repoFileReader(absRoot, options.maxSourceBytes);
  const skipped = new Map<RepoPath, string>();
  // One file may be read in part for several reasons (a root manifest's workspaces and its exports): all are kept.
  const skip = (file: RepoPath, reason: string) => {
    const before = skipped.get(file);
    skipped.set(file, before === undefined || before === reason ? reason : `${before}; ${reason}`);
  };
  // A manifest that is not JSON (or nests too deep to parse): its package is not one of the workspace's.
  for (const problem of workspace.problems) skip(problem.path, `${problem.readInPart ? '' : 'not read as a manifest: '}${problem.message.split('\n')[0]!.slice(0, 200)}`);
  for (const name of unnamed.slice(0, 1000)) skipped.set(name, 'its name is not valid UTF-8: waves can neither read nor name it (rename it)');
  const texts = new Map<RepoPath, string>();
  const idOf = (file: RepoPath): string | null => {
    const blob = blobIds?.get(file);
    if (blob) return blob;
    const read = reader.read(file);
    if (!read.ok) {
      if (read.reason) skipped.set(file, read.reason);
      return null;
    }
    if (isSourceFile(file)) texts.set(file, decodeSource(read.content));
    return contentId(read.content);
  };
  const ids = new Map<RepoPath, string>();
  for (const file of sources) {
    const id = idOf(file);
    if (id !== null) ids.set(file, id);
  }
  const configIds = files.filter(isConfigFile).map((file) => `${file}:${blobIds?.get(file) ?? idOf(file) ?? '-'}`);
  const keyOf = (extras: Record<string, string>) => hashOf([...configIds, '|', ...Object.keys(extras).sort().map((abs) => `${abs}:${extras[abs]}`)]);
  // Configs read outside the file list last time, hashed as they are now.
  const extrasNow: Record<string, string> = {};
  for (const abs of Object.keys(previous?.extraConfigs ?? {})) {
    // The cache lies in the repository: a path it names is read only as a regular file, bounded.
    const read = readRegularFileSync(abs, { maxBytes: MAX_SOURCE_BYTES, followLinks: true });
    extrasNow[abs] = read.ok ? contentId(read.text) : '-';
  }
  const configKey = keyOf(extrasNow);

  // Scan what is new or changed.
  const entries: Record<RepoPath, CachedFile> = {};
  const jobs: ScanJob[] = [];
  for (const file of sources) {
    const id = ids.get(file);
    if (id === undefined) continue; // unreadable
    const cached = previous?.entries[file];
    if (cached && cached.id === id) entries[file] = cached;
    else {
      const text = texts.get(file);
      jobs.push(text === undefined ? { file } : { file, text });
    }
  }
  texts.clear();
  const { results: scanned, threads } = await scanFiles(absRoot, jobs, options);
  // The symbols of what was scanned, from the same pass over each file's text.
  const freshSymbols: SymbolsEntries = {};
  for (const result of scanned) {
    if (result.imports) {
      const id = ids.get(result.file)!;
      entries[result.file] = { id, imports: result.imports, targets: [] };
      freshSymbols[id] = result.symbols ?? (options.words === false ? ['', ''] : ['', '', '']);
    }
    if (result.skipped) skipped.set(result.file, result.skipped);
  }
  const fresh = new Set(scanned.map((r) => r.file));

  // Resolve what the change can affect.
  const sameConfig = previous !== null && previous.configKey === configKey;
  const changes = { dirs: new Set<RepoPath>(), removed: new Set<RepoPath>(), stems: new Set<string>() };
  if (sameConfig) {
    const before = new Set(previous.files);
    const now = new Set(files);
    const added = files.filter((f) => !before.has(f));
    changes.removed = new Set(previous.files.filter((f) => !now.has(f)));
    changes.dirs = new Set([...added, ...changes.removed].map(parentDir));
    changes.stems = addedStems(added);
  }
  let resolver: ModuleResolver | null = null;
  let resolvedCount = 0;
  let done = 0;
  for (const file of sources) {
    const entry = entries[file];
    if (!entry) continue;
    const reuse = sameConfig && !fresh.has(file) && entry.targets.length === entry.imports.length;
    const targets: string[] = [];
    for (let i = 0; i < entry.imports.length; i++) {
      const [specifier] = entry.imports[i]!;
      const old = reuse ? entry.targets[i]! : null;
      if (old !== null && !mustReresolve(file, specifier, old, changes)) targets.push(old);
      else {
        resolver ??= new ModuleResolver({ root: absRoot, files, members });
        targets.push(toTarget(resolver.resolve(specifier, file)));
        resolvedCount++;
      }
    }
    entries[file] = { ...entry, targets };
    if (options.onProgress && ++done % 1000 === 0) options.onProgress(done, sources.length);
  }
  options.onProgress?.(sources.length, sources.length);
  // Tsconfigs whose extends chain was refused: found by this build's resolver, else (a warm build
  // that resolved nothing) as the cache remembers them; the same configuration refuses the same.
  const skippedConfigs: Record<RepoPath, string> = { ...(sameConfig || !resolver ? (previous?.skippedConfigs ?? {}) : {}), ...Object.fromEntries(resolver?.skippedConfigs ?? []) };
  for (const [file, reason] of Object.entries(skippedConfigs)) skip(file, reason);

  if (writeCache && (jobs.length > 0 || resolvedCount > 0 || previous === null)) {
    // The configs the resolutions kept in the cache depend on: all those read when everything was
    // resolved afresh; else those read before (as they are now) and those this build read too —
    // a build that re-resolved two imports read one tsconfig, and the rest still stand on the others.
    const extraConfigs: Record<string, string> = sameConfig || !resolver ? { ...extrasNow } : {};
    if (resolver) for (const [abs, text] of resolver.extraConfigReads) extraConfigs[abs] = contentId(text);
    const cache: GraphCache = { version: GRAPH_CACHE_VERSION, configKey: keyOf(extraConfigs), files: [...files], extraConfigs, skippedConfigs, entries };
    await writeGraphCache(cacheRoot, tool, cache, slot);
  }
  // Every file scanned afresh (a cold build): their symbols are the whole cache, written now; else
  // the symbols cache is read only when inference asks for it (`onSymbols`).
  const allFresh = jobs.length > 0 && Object.values(entries).every((entry) => entry.id in freshSymbols);
  if (writeCache && allFresh) {
    // A build that counted no words keeps those an earlier plan counted for the same contents.
    if (options.words === false) {
      const earlier = useCache ? readSymbolsCache(cacheRoot, slot) : null;
      if (earlier) for (const [id, packed] of Object.entries(freshSymbols)) if (packed.length === 2 && Object.hasOwn(earlier, id) && earlier[id]!.length === 3) freshSymbols[id] = earlier[id]!;
    }
    writeSymbolsCache(cacheRoot, freshSymbols, slot);
  }
  if (options.onSymbols) {
    let symbols: ReadonlyMap<RepoPath, FileSymbols> | null = null;
    options.onSymbols(() => (symbols ??= readSymbols({ absRoot, cacheRoot, slot, sources, entries, fresh: freshSymbols, allFresh, useCache, writeCache, maxSourceBytes: options.maxSourceBytes })));
  }
  options.onStats?.({
    sources: sources.length,
    scanned: jobs.length,
    resolved: resolvedCount,
    cache: !useCache ? 'none' : previous === null ? 'cold' : jobs.length === 0 && resolvedCount === 0 ? 'warm' : 'rebuilt',
    threads,
  });

  return assembleGraph(sources, members, (file) => {
    const entry = entries[file];
    if (!entry) return undefined;
    const result: FileImports = { targets: [], unresolved: [], external: 0 };
    entry.imports.forEach(([specifier, kind], i) => {
      const target = entry.targets[i]!;
      if (target === EXTERNAL) result.external++;
      else if (target === UNRESOLVED) result.unresolved.push(specifier);
      else result.targets.push({ to: target, kind });
    });
    return result;
  }, [...skipped].map(([file, reason]) => ({ file, reason })));
}
