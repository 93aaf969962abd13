/**
 * Domain vocabulary shared by every stage of the planner. Plain types only: the zod schemas at
 * the boundaries (issues file, options, plan) produce these, and the core passes them around.
 */
import type { DirectedGraph } from 'graphology';

/** A GitHub-style issue number. */
export type IssueNumber = number;
/** A path relative to the repository root, POSIX separators, no leading `./`, no trailing `/`. */
export type RepoPath = string;

/** One issue of the backlog, as the planner sees it after parsing. */
export interface BacklogIssue {
  number: IssueNumber;
  title: string;
  body: string;
  labels: string[];
  state: 'open' | 'closed';
  /** ISO timestamp; issues without one rank after those with one. */
  createdAt: string | null;
  url: string | null;
  /** Explicit order from a planning tool (lower first); ranks after the priority label. */
  sortOrder: number | null;
}

/** A workspace package of the repository being planned. */
export interface WorkspacePackage {
  name: string;
  /** Directory of the package, relative to the root (`""` for a root package). */
  dir: RepoPath;
}

export type ImportKind = 'static' | 'type' | 'dynamic' | 'require' | 'reexport';

export interface FileNodeAttributes {
  /** Name of the workspace package the file belongs to, or null. */
  package: string | null;
  dir: RepoPath;
}

export interface ImportEdgeAttributes {
  /** The strongest kind among the imports of the target by the source (static > reexport > require > dynamic > type). */
  kind: ImportKind;
  /** Every kind under which the source imports the target, sorted. */
  kinds: ImportKind[];
}

export interface UnresolvedImport {
  from: RepoPath;
  specifier: string;
}

export interface RepoGraphAttributes {
  /** Internal-looking specifiers (relative, aliases, workspace names) that resolved to no file. */
  unresolved: UnresolvedImport[];
  /** Number of bare specifiers left to third-party packages. */
  external: number;
  /** Files the build refused to read: a link out of the repository, not a regular file, too large. */
  skipped: SkippedFile[];
}

/** A repository file waves did not read, and why. */
export interface SkippedFile {
  file: RepoPath;
  reason: string;
}

/** File-level import graph: one node per source file and per imported JSON file, one edge per importing pair. */
export type RepoGraph = DirectedGraph<FileNodeAttributes, ImportEdgeAttributes, RepoGraphAttributes>;

/** What one source file declares and the messages it holds (see graph/scan-symbols.ts). */
export interface FileSymbols {
  names: readonly string[];
  literals: readonly string[];
  /** Third-party packages it imports (bare specifiers cut to the package name). */
  packages?: readonly string[];
  /** The words of its text, most frequent first, packed: `word*count` (`word` when once), space-separated (`contentWords`). */
  words?: string;
}

/** One commit of the history before the planned commit: its subject and the files it changed. */
export interface PastCommit {
  subject: string;
  files: readonly RepoPath[];
}

/** Everything the planner needs to know about the repository. Built by `loadRepo`. */
export interface RepoIndex {
  /** The root as the caller named it (reported in the plan, never read by the planner). */
  root: string;
  head: string | null;
  /** Every file of the repository (sorted): tracked and untracked-but-not-ignored in git. */
  files: readonly RepoPath[];
  packages: readonly WorkspacePackage[];
  graph: RepoGraph;
  /** Files that are symbolic links leading outside the repository: never a fence, nor a candidate. */
  linksOut?: readonly RepoPath[];
  /** What each source file declares and its message literals, for scope inference (absent: `readSymbols`, else names are not used). */
  symbols?: ReadonlyMap<RepoPath, FileSymbols>;
  /**
   * Reads the same when first called (`loadRepo` gives it: the symbols cache is read, and the files
   * it lacks scanned, only when inference needs them — never on a plan that does not). The same map each call.
   */
  readSymbols?: () => ReadonlyMap<RepoPath, FileSymbols>;
  /** The most recent commits before the planned one, newest first, for scope inference's history prior (absent: none). */
  history?: readonly PastCommit[];
}

/** An active lease held by some orchestrator (the fold of the lease journal at `now`). */
export interface ActiveLease {
  id?: string;
  /** A repository path or a lane name. */
  lane: string;
  holder: string;
  /** ISO timestamp of expiry. */
  until: string;
}

export type Granularity = 'file' | 'dir' | 'package';
