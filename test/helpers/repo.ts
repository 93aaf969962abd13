import { assembleGraph, type RepoIndex, type RepoPath, type WorkspacePackage } from '@waves/planner';

export interface RepoSpec {
  files: readonly RepoPath[];
  /** `[from, to]` import edges between source files. */
  imports?: readonly (readonly [RepoPath, RepoPath])[];
  packages?: readonly WorkspacePackage[];
  root?: string;
  head?: string | null;
}

/** An in-memory repository: a file list and a literal import graph, no disk. */
export function makeRepo(spec: RepoSpec): RepoIndex {
  const files = [...new Set(spec.files)].sort();
  const packages = spec.packages ?? [];
  const sources = files.filter((f) => /\.[mc]?[jt]sx?$/.test(f));
  const byFile = new Map<RepoPath, { to: RepoPath; kind: 'static' }[]>();
  for (const [from, to] of spec.imports ?? []) {
    if (!byFile.has(from)) byFile.set(from, []);
    byFile.get(from)!.push({ to, kind: 'static' });
  }
  const graph = assembleGraph(sources, packages, (file) => ({ targets: byFile.get(file) ?? [], unresolved: [], external: 0 }));
  return { root: spec.root ?? '.', head: spec.head ?? null, files, packages, graph };
}
