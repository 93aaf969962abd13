import type { BacklogIssue, IssueNumber, RepoPath } from '../types.js';
import { extractMentions, type PathMention } from './extract-mentions.js';
import { expandPattern } from './expand-pattern.js';
import { containsPath } from '../paths/repo-paths.js';
import { ROOT_SUBSYSTEM, type RepoTree } from './repo-tree.js';
import { resolvePath, type Resolution } from './resolve-path.js';
import { notRepositoryFiles } from './path-token.js';
import { isCompanionPath, isWiringPath } from './companion-paths.js';
import { isControlFile } from './control-files.js';
import { categoryFromLabel, laneFromLabel, resolveLaneName } from './resolve-lane.js';

/**
 * What a leaf is: an existing file or directory, a new file in an existing directory, or a new
 * directory — the first missing one on the way to a path the issue will create, placed under its
 * nearest existing ancestor (`packages/web/src/charts/` for `packages/web/src/charts/bar.ts`).
 */
export type LeafKind = 'file' | 'dir' | 'new-file' | 'new-dir';

/** Directories, existing or new, stand for everything under them. */
export function isDirectoryLeaf(kind: LeafKind): boolean {
  return kind === 'dir' || kind === 'new-dir';
}
/** Where a piece of scope came from: the issue's text, one of its labels, or the config's lanes. */
export type ScopeSource = 'title' | 'body' | 'label' | 'config';

export interface ScopeEvidence {
  source: ScopeSource;
  /** How it was found: `backtick`, `anchor`, `github-url`, `label-lane`, `keyword`… */
  via: string;
  /** The text that produced it: the token as written, the label, the lane or keyword. */
  text: string;
  /** 1-based body line, 0 for the title, null for labels and config. */
  line: number | null;
}

export interface ScopeLeaf {
  path: RepoPath;
  kind: LeafKind;
  evidence: ScopeEvidence[];
}

export interface ScopeNote {
  text: string;
  source: ScopeSource;
  line: number | null;
  reason: string;
}

export interface IssueScope {
  number: IssueNumber;
  /** What the issue will touch; leaves inside another leaf are folded into it. Sorted by path. */
  leaves: ScopeLeaf[];
  /** Distinct files (existing or new) named, before folding. */
  fileCount: number;
  /** Packages or top-level directories the leaves lie in. */
  subsystems: string[];
  /**
   * What the subdivide rule judges: the code the change spans — its files (named, existing or
   * new) and the subsystems holding them, tests, fixtures, docs, examples and wiring (manifests,
   * configuration, CI) left out (`companions` counts those files), the root's own files in no
   * subsystem — or, when it touches no code at all, all its files and no subsystem.
   */
  size: { files: number; subsystems: string[]; companions: number };
  /**
   * How the issue names the repository root itself (`./`, `/`, "files at the root"), or null. Its
   * leaves then hold the root's own files, and it touches root files (see `rootFilesOf`).
   */
  root: ScopeEvidence | null;
  /**
   * The control files (control-files.ts) the issue names itself, as files, in its title or body —
   * kept past the folding: a folder leaf (a lane) holding one does not name it, so the fence lists
   * the file beside the folder (`fenceLabels`). Sorted.
   */
  namedControlFiles: RepoPath[];
  /** Explicit lanes (labels, `Lane:` lines, config keyword lanes). */
  lanes: string[];
  /** Names that resolved to nothing (reported, never leaves). */
  unresolved: ScopeNote[];
  /** Paths dropped because they would leave the repository. */
  rejected: ScopeNote[];
  /** Paths the issue says not to touch. */
  excluded: RepoPath[];
  dependsOn: IssueNumber[];
  parent: IssueNumber | null;
  hasAcceptanceCriteria: boolean;
  steps: number;
  category: string | null;
}

export interface ScopeOptions {
  lanes?: Readonly<Record<string, { paths: readonly string[]; keywords?: readonly string[] }>>;
  repoSlug?: string | null;
}

function resolveMention(mention: PathMention, tree: RepoTree, laneDirs: readonly RepoPath[]): Resolution {
  let first: Resolution | null = null;
  for (const candidate of mention.candidates) {
    const off = notRepositoryFiles(candidate.split('/'));
    if (off !== null) {
      first ??= { kind: 'unresolved', reason: off };
      continue;
    }
    // Only an explicit mention may create a directory: a bare word in a list is too weak for that.
    const resolved = resolvePath(candidate, tree, { directory: mention.directory, laneDirs, newDirectories: mention.strong });
    if (resolved.kind === 'file' || resolved.kind === 'dir') return resolved;
    // A line anchor (`x.ts:12:5`, a frame of a log) points into a file that exists: never one to create
    // (`/Users/John Smith/x.ts:10:3` cut at the space is no new folder `Smith/`).
    if (mention.lines !== null && (resolved.kind === 'new-file' || resolved.kind === 'new-dir')) {
      first ??= { kind: 'unresolved', reason: 'no such file (a line anchor points into an existing one)' };
      continue;
    }
    first ??= resolved;
  }
  return first ?? { kind: 'unresolved', reason: 'no such file or directory' };
}

class LeafSet {
  private readonly byPath = new Map<RepoPath, ScopeLeaf>();
  add(path: RepoPath, kind: LeafKind, evidence: ScopeEvidence): void {
    const existing = this.byPath.get(path);
    if (existing) {
      if (!existing.evidence.some((e) => e.source === evidence.source && e.via === evidence.via && e.text === evidence.text)) {
        existing.evidence.push(evidence);
      }
      return;
    }
    this.byPath.set(path, { path, kind, evidence: [evidence] });
  }
  get size(): number {
    return this.byPath.size;
  }
  all(): ScopeLeaf[] {
    return [...this.byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

/** Folds leaves that lie inside a directory leaf into it, keeping their evidence. */
function foldLeaves(leaves: ScopeLeaf[]): ScopeLeaf[] {
  const dirs = leaves.filter((leaf) => isDirectoryLeaf(leaf.kind));
  const out: ScopeLeaf[] = [];
  for (const leaf of leaves) {
    const outer = dirs.find((dir) => dir !== leaf && containsPath(dir.path, leaf.path));
    if (outer) {
      for (const e of leaf.evidence) if (!outer.evidence.includes(e)) outer.evidence.push(e);
    } else out.push(leaf);
  }
  return out;
}

/**
 * The scope of one issue: which repository paths it will touch, with the evidence for each, and
 * what else its text says (dependencies, parent, acceptance criteria, steps). Pure: the tree is
 * the only view of the repository, and nothing named by the issue is ever read.
 */
export function extractScope(
  issue: Pick<BacklogIssue, 'number' | 'title' | 'body' | 'labels'>,
  tree: RepoTree,
  options: ScopeOptions = {},
  /** Leaves scope inference adds (plan mode): existing files or directories, with their evidence. */
  inferred: readonly { path: RepoPath; kind: 'file' | 'dir'; evidence: ScopeEvidence }[] = [],
): IssueScope {
  const mentions = extractMentions(issue.title, issue.body, { repoSlug: options.repoSlug ?? null });
  const configLanes = options.lanes ?? {};
  const leaves = new LeafSet();
  const excluded = new Set<RepoPath>();
  const unresolved: ScopeNote[] = [];
  const lanes = new Set<string>();
  const fileLeaves = new Set<RepoPath>();
  const namedControl = new Set<RepoPath>();

  // Lanes first: they also disambiguate relative paths in the body.
  const laneRequests: { name: string; source: ScopeSource; via: string; text: string; line: number | null }[] = [];
  for (const label of issue.labels) {
    const lane = laneFromLabel(label);
    if (lane) laneRequests.push({ name: lane, source: 'label', via: 'label-lane', text: label, line: null });
  }
  for (const lane of mentions.lanes) laneRequests.push({ name: lane.name, source: 'body', via: 'lane-line', text: `Lane: ${lane.name}`, line: lane.line });
  for (const [name, lane] of Object.entries(configLanes).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const keyword = (lane.keywords ?? []).find((kw) => kw.trim() !== '' && new RegExp(`(?:^|\\W)${escapeRegExp(kw.trim())}(?:$|\\W)`, 'i').test(issue.title));
    if (keyword) laneRequests.push({ name, source: 'config', via: 'keyword', text: keyword, line: null });
  }
  const laneDirs: RepoPath[] = [];
  for (const request of laneRequests) {
    // Own properties only: a `lane:constructor` label names a lane, not Object.prototype.constructor.
    const configured = (Object.hasOwn(configLanes, request.name) ? configLanes[request.name] : undefined) ?? Object.entries(configLanes).find(([n]) => n.toLowerCase() === request.name.toLowerCase())?.[1];
    const evidence: ScopeEvidence = { source: request.source, via: request.via, text: request.text, line: request.line };
    if (configured) {
      lanes.add(request.name);
      let matched = false;
      // A configured path through a symbolic link out of the repository is no fence either.
      const linked = (path: RepoPath) => {
        const at = tree.linkOut(path);
        if (at !== null) unresolved.push({ text: `${request.text}: ${path}`, source: request.source, line: request.line, reason: `${at} is a symbolic link leading outside the repository` });
        return at !== null;
      };
      for (const pattern of configured.paths) {
        const expanded = expandPattern(pattern, tree);
        if (expanded.kind === 'dir') {
          matched = true;
          if (linked(expanded.path)) continue;
          leaves.add(expanded.path, 'dir', { ...evidence, source: request.source === 'config' ? 'config' : request.source });
          laneDirs.push(expanded.path);
        } else if (expanded.kind === 'files') {
          for (const path of expanded.paths) {
            if (linked(path)) continue;
            leaves.add(path, 'file', evidence);
            fileLeaves.add(path);
          }
          matched = true;
        }
      }
      if (!matched) unresolved.push({ text: request.text, source: request.source, line: request.line, reason: `lane ${request.name}: its configured paths match nothing` });
      continue;
    }
    const dir = resolveLaneName(request.name, tree);
    if (dir === null) {
      unresolved.push({ text: request.text, source: request.source, line: request.line, reason: `lane ${request.name} matches no workspace package or directory` });
      continue;
    }
    lanes.add(request.name);
    const at = tree.linkOut(dir);
    if (at !== null) {
      unresolved.push({ text: request.text, source: request.source, line: request.line, reason: `${at} is a symbolic link leading outside the repository` });
      continue;
    }
    leaves.add(dir, 'dir', evidence);
    laneDirs.push(dir);
  }

  for (const mention of mentions.paths) {
    if (options.repoSlug && mention.githubRepo && mention.githubRepo.toLowerCase() !== options.repoSlug.toLowerCase()) {
      unresolved.push({ text: mention.raw, source: mention.in, line: mention.line, reason: `links to another repository (${mention.githubRepo})` });
      continue;
    }
    let resolved = resolveMention(mention, tree, laneDirs);
    // A file the issue says it edits or deletes, in a directory that does not exist yet: the
    // issue does not create that directory (whoever does conflicts with it by containment), so it
    // claims the file alone — not every path of the new directory, as its creators do.
    if (resolved.kind === 'new-dir' && !mention.directory && (mention.change === 'edit' || mention.change === 'delete')) {
      resolved = { kind: 'new-file', path: resolved.named };
    }
    if (resolved.kind === 'unresolved') {
      if (mention.strong && !mention.excluded) unresolved.push({ text: mention.raw, source: mention.in, line: mention.line, reason: resolved.reason });
      continue;
    }
    if (mention.excluded) {
      excluded.add(resolved.path);
      continue;
    }
    leaves.add(resolved.path, resolved.kind, { source: mention.in, via: mention.via, text: mention.raw, line: mention.line });
    if ((resolved.kind === 'file' || resolved.kind === 'new-file') && isControlFile(resolved.path)) namedControl.add(resolved.path);
    // A new file counts as a file wherever it goes; a directory, new or not, as none.
    if (resolved.kind === 'new-dir') {
      if (!mention.directory) fileLeaves.add(resolved.named);
    } else if (resolved.kind !== 'dir') fileLeaves.add(resolved.path);
  }

  // The root named itself: its own files (not everything under it — that would be every path).
  let root: ScopeEvidence | null = null;
  for (const mention of mentions.roots) {
    if (mention.excluded) {
      for (const file of tree.rootFiles) excluded.add(file);
      continue;
    }
    const evidence: ScopeEvidence = { source: mention.in, via: mention.via, text: mention.raw, line: mention.line };
    root ??= evidence;
    if (tree.rootFiles.length === 0) unresolved.push({ text: mention.raw, source: mention.in, line: mention.line, reason: 'the repository root holds no files' });
    for (const file of tree.rootFiles) leaves.add(file, 'file', evidence);
  }

  for (const leaf of inferred) {
    if (excluded.has(leaf.path) || !(leaf.kind === 'file' ? tree.isFile(leaf.path) : tree.isDir(leaf.path))) continue;
    leaves.add(leaf.path, leaf.kind, leaf.evidence);
    if (leaf.kind === 'file') fileLeaves.add(leaf.path);
  }

  const allLeaves = leaves.all();
  for (const leaf of allLeaves) excluded.delete(leaf.path);
  // A fenced folder holding a link out of the repository: a write through it lands outside, where
  // neither the live fence's watcher nor harvest sees it (a hook refuses it). Said, the folder kept.
  for (const leaf of allLeaves) {
    if (leaf.kind !== 'dir') continue;
    for (const link of tree.linksOutUnder(leaf.path).slice(0, 5)) {
      unresolved.push({ text: link, source: leaf.evidence[0]?.source ?? 'body', line: null, reason: `a symbolic link leading outside the repository, inside the fenced folder ${leaf.path || '(root)'}/: a write through it lands outside the repository, unseen by harvest` });
    }
  }
  const folded = foldLeaves(allLeaves);
  const subsystems = [...new Set(folded.map((leaf) => subsystemOfLeaf(leaf, tree)))].sort();
  const size = sizeOf(folded, fileLeaves, tree);
  const category = issue.labels.map(categoryFromLabel).find((c) => c !== null) ?? null;

  return {
    number: issue.number,
    leaves: folded,
    fileCount: fileLeaves.size,
    subsystems,
    size,
    root,
    namedControlFiles: [...namedControl].sort(),
    lanes: [...lanes].sort(),
    unresolved,
    rejected: mentions.rejected.map((r) => ({ text: r.raw, source: r.in, line: r.line, reason: r.reason })),
    excluded: [...excluded].sort(),
    dependsOn: mentions.dependsOn.filter((n) => n !== issue.number),
    parent: mentions.parent,
    hasAcceptanceCriteria: mentions.hasAcceptanceCriteria,
    steps: mentions.steps,
    category,
  };
}

/** Tests, fixtures, docs, examples, and the wiring around code (manifests, configuration, CI). */
function isBesideCode(path: RepoPath): boolean {
  return isCompanionPath(path) || isWiringPath(path);
}

/**
 * What the subdivide rule judges: the code a change spans. Its files and the subsystems holding
 * them leave out what is beside the code (`isBesideCode`), and the root's own files form no
 * subsystem (what lies at the top of a repository is its shared wiring, or the one package that
 * holds everything). A change with no code at all — docs, configuration, manifests — is a sweep:
 * judged on all its files, spanning no subsystem.
 */
function sizeOf(leaves: readonly ScopeLeaf[], fileLeaves: ReadonlySet<RepoPath>, tree: RepoTree): IssueScope['size'] {
  const code = leaves.filter((leaf) => !isBesideCode(leaf.path));
  if (code.length === 0) return { files: fileLeaves.size, subsystems: [], companions: 0 };
  const files = [...fileLeaves].filter((file) => !isBesideCode(file)).length;
  const subsystems = [...new Set(code.map((leaf) => subsystemOfLeaf(leaf, tree)))].filter((s) => s !== ROOT_SUBSYSTEM).sort();
  return { files, subsystems, companions: fileLeaves.size - files };
}

/** A new top-level directory is a subsystem of its own; anything else, the tree's subsystem of it. */
function subsystemOfLeaf(leaf: ScopeLeaf, tree: RepoTree): string {
  return leaf.kind === 'new-dir' && !leaf.path.includes('/') ? leaf.path : tree.subsystemOf(leaf.path);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
