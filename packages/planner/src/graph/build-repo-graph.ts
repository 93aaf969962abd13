/**
 * Adapter: builds the file-level import graph of a repository. Each source file is read once,
 * its specifiers scanned (`scanImports`), each specifier resolved (`ModuleResolver`), and the
 * result stored in a graphology directed graph — one node per source file, one edge per
 * importing pair, carrying the kinds of import.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DirectedGraph } from 'graphology';
import { parentDir } from '../scope/repo-tree.js';
import type { FileNodeAttributes, ImportKind, RepoGraph, RepoPath, UnresolvedImport, WorkspacePackage } from '../types.js';
import { listRepoFiles } from './list-files.js';
import { isSourceFile, ModuleResolver } from './module-resolver.js';
import { readWorkspace, type WorkspaceMember } from './read-workspace.js';
import { scanImports } from './scan-imports.js';

/** Strongest first: the edge's `kind` is the first of these among its kinds. */
export const IMPORT_KIND_ORDER: readonly ImportKind[] = ['static', 'reexport', 'require', 'dynamic', 'type'];

export interface BuildRepoGraphOptions {
  /** The repository's files (default: listed with git, or walked). */
  files?: readonly RepoPath[];
  /** Its workspace packages with their manifests (default: read from its configuration). */
  members?: readonly WorkspaceMember[];
  /** Called now and then with the number of source files done and the total. */
  onProgress?: (done: number, total: number) => void;
}

export interface FileImports {
  /** Resolved targets with their kinds. */
  targets: { to: RepoPath; kind: ImportKind }[];
  unresolved: string[];
  external: number;
}

/** The imports of one file, resolved. */
export function resolveFileImports(text: string, file: RepoPath, resolver: ModuleResolver): FileImports {
  const targets: FileImports['targets'] = [];
  const unresolved: string[] = [];
  let external = 0;
  for (const { specifier, kind } of scanImports(text)) {
    const resolved = resolver.resolve(specifier, file);
    if (resolved.kind === 'file') {
      if (resolved.path !== file) targets.push({ to: resolved.path, kind });
    } else if (resolved.kind === 'unresolved') unresolved.push(specifier);
    else external++;
  }
  return { targets, unresolved, external };
}

/** Assembles the graph from per-file imports (exported so a cache can feed it). */
export function assembleGraph(
  sources: readonly RepoPath[],
  packages: readonly WorkspacePackage[],
  importsOf: (file: RepoPath) => FileImports | undefined,
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
  for (const file of sources) graph.addNode(file, { package: packageOf(file), dir: parentDir(file) });
  const unresolved: UnresolvedImport[] = [];
  let external = 0;
  for (const file of sources) {
    const imports = importsOf(file);
    if (!imports) continue;
    external += imports.external;
    for (const specifier of imports.unresolved) unresolved.push({ from: file, specifier });
    for (const { to, kind } of imports.targets) {
      if (!graph.hasNode(to)) continue;
      const key = graph.edge(file, to);
      if (key === undefined) graph.addEdge(file, to, { kind, kinds: [kind] });
      else {
        const attrs = graph.getEdgeAttributes(key);
        if (!attrs.kinds.includes(kind)) {
          const kinds = [...attrs.kinds, kind].sort((a, b) => IMPORT_KIND_ORDER.indexOf(a) - IMPORT_KIND_ORDER.indexOf(b));
          graph.mergeEdgeAttributes(key, { kinds, kind: kinds[0]! });
        }
      }
    }
  }
  graph.replaceAttributes({ unresolved, external });
  return graph;
}

/** Builds the import graph of the repository at `root`. */
export async function buildRepoGraph(root: string, options: BuildRepoGraphOptions = {}): Promise<RepoGraph> {
  const absRoot = path.resolve(root);
  const files = options.files ?? (await listRepoFiles(absRoot)).files;
  const members = options.members ?? (await readWorkspace(absRoot, files)).members;
  const resolver = new ModuleResolver({ root: absRoot, files, members });
  const sources = files.filter(isSourceFile);
  const imports = new Map<RepoPath, FileImports>();
  let done = 0;
  for (const file of sources) {
    let text: string;
    try {
      text = readFileSync(path.join(absRoot, file), 'utf8');
    } catch {
      continue; // listed but unreadable (a dangling symlink, a race with a deletion)
    }
    imports.set(file, resolveFileImports(text, file, resolver));
    done++;
    if (options.onProgress && done % 500 === 0) options.onProgress(done, sources.length);
  }
  options.onProgress?.(sources.length, sources.length);
  return assembleGraph(sources, members, (file) => imports.get(file));
}
