import type { RepoPath } from '../types.js';
import { isDirectoryLeaf, type LeafKind } from './extract-scope.js';
import { globMatcher, normalisePattern } from '../paths/globs.js';
import { parentDir } from '../paths/repo-paths.js';
import type { RepoTree } from './repo-tree.js';
import { CI_GLOBS } from './ci-paths.js';

/**
 * Root files: the files the repository's packages share — the root manifest, the workspace
 * file, the base tsconfig files, CI config (every forge's: ci-paths.ts), and lockfiles wherever
 * they are. Two issues touching
 * root files conflict (`path`, "both touch root files"): two dependency changes rewrite one
 * lockfile, two changes to the shared configuration build on each other. They no longer make an
 * issue run alone: replayed on 300 commits of seven public repositories, that cost up to 6 waves
 * a repository at the files grade (19 at the dirs grade) and kept apart no true conflict that
 * paths and imports did not, while keeping root-file issues apart from one another costs none
 * (bench/RESULTS.md). A config's `serial` globs still make an issue serial.
 * Dispatch tells agents not to touch them unless their issue names them; harvest flags them.
 */
export const ROOT_FILE_GLOBS: readonly string[] = [
  'package.json',
  'pnpm-workspace.yaml',
  'tsconfig*.json',
  ...CI_GLOBS,
  '**/pnpm-lock.yaml',
  '**/package-lock.json',
  '**/npm-shrinkwrap.json',
  '**/yarn.lock',
  '**/bun.lock',
  '**/bun.lockb',
];

/** The root files, under their former name: they made an issue serial until the backtests showed the cost. */
export const BUILTIN_SERIAL_GLOBS: readonly string[] = ROOT_FILE_GLOBS;

export interface SerialMatch {
  /** The path of the issue's scope that matched. */
  path: RepoPath;
  /** The serial rule that matched it: a configured glob, or `hub`. */
  rule: string;
  builtin: boolean;
  /** Why it makes the issue serial, for people: "db/schema.ts (serial db/**)", a hub's reach. */
  reason: string;
}

/**
 * The first serial rule an issue's leaf matches, or null: a configured glob (`configured`) or,
 * in `builtins`, globs matched as root files (`rootFileOf` passes the root files). A directory
 * leaf matches when the directory itself or any file under it does (editing `.github` touches
 * `.github/workflows/ci.yml`).
 */
export function matchSerial(
  leaf: { path: RepoPath; kind: LeafKind },
  tree: RepoTree,
  configured: readonly string[],
  builtins: readonly string[] = [],
): SerialMatch | null {
  const rules = [
    ...builtins.map((rule) => ({ rule, builtin: true })),
    ...configured.map((rule) => ({ rule: normalisePattern(rule), builtin: false })),
  ];
  for (const { rule, builtin } of rules) {
    const match = globMatcher(rule);
    if (match(leaf.path) || (isDirectoryLeaf(leaf.kind) && match(`${leaf.path}/`)) || (!builtin && leaf.kind !== 'dir' && isUnder(leaf.path, rule))) {
      return serialMatch(leaf.path, rule, builtin);
    }
  }
  if (leaf.kind === 'dir') {
    for (const file of tree.filesUnder(leaf.path)) {
      for (const { rule, builtin } of rules) {
        if (globMatcher(rule)(file)) return serialMatch(file, rule, builtin);
      }
    }
  }
  return null;
}

function serialMatch(path: RepoPath, rule: string, builtin: boolean): SerialMatch {
  return { path, rule, builtin, reason: builtin ? `${path} (root file)` : `${path} (serial ${rule})` };
}

/** A configured plain directory (`packages/core`) covers the files under it. */
function isUnder(path: RepoPath, rule: string): boolean {
  if (/[*?[\]{}!]/.test(rule)) return false;
  let dir = parentDir(path);
  while (dir !== '') {
    if (dir === rule) return true;
    dir = parentDir(dir);
  }
  return false;
}

/**
 * The root file a leaf touches, or null: the leaf itself (`.github/` for that directory), or for
 * a directory leaf holding one (a package with its own lockfile) the first root file under it.
 */
export function rootFileOf(leaf: { path: RepoPath; dir: boolean }, tree: RepoTree): RepoPath | null {
  const match = matchSerial({ path: leaf.path, kind: leaf.dir ? 'dir' : 'file' }, tree, [], ROOT_FILE_GLOBS);
  if (!match) return null;
  return leaf.dir && match.path === leaf.path ? `${leaf.path}/` : match.path;
}

/**
 * The root files an issue touches, sorted: those its leaves are or hold, and when it names the
 * repository root itself (`./`, "files at the root"), the root as `./` — whatever files the
 * root happens to hold, an issue about them touches what every package shares.
 */
export function rootFilesOf(leaves: readonly { path: RepoPath; dir: boolean }[], tree: RepoTree, namesRoot: boolean): RepoPath[] {
  const out = new Set<RepoPath>();
  if (namesRoot) out.add('./');
  for (const leaf of leaves) {
    const file = rootFileOf(leaf, tree);
    if (file !== null) out.add(file);
  }
  return [...out].sort();
}
