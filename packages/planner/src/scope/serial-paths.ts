import type { RepoPath } from '../types.js';
import { isDirectoryLeaf, type LeafKind, type ScopeEvidence } from './extract-scope.js';
import { globMatcher, normalisePattern } from '../paths/globs.js';
import { parentDir } from '../paths/repo-paths.js';
import type { RepoTree } from './repo-tree.js';

/**
 * Root files every package depends on: an agent editing one can break every other agent's work,
 * so an issue touching one runs alone. Lockfiles count wherever they are.
 */
export const BUILTIN_SERIAL_GLOBS: readonly string[] = [
  'package.json',
  'pnpm-workspace.yaml',
  'tsconfig*.json',
  '.github/**',
  '.ci/**',
  '**/pnpm-lock.yaml',
  '**/package-lock.json',
  '**/npm-shrinkwrap.json',
  '**/yarn.lock',
  '**/bun.lock',
  '**/bun.lockb',
];

export interface SerialMatch {
  /** The path of the scope that matched. */
  path: RepoPath;
  /** The serial rule that matched it: a glob, `hub`, or `root` (the issue names the root itself). */
  rule: string;
  builtin: boolean;
  /** Why it makes the issue serial, for people: "package.json (root file)", a hub's reach. */
  reason: string;
}

/**
 * An issue that names the repository root itself (`./`, `/`, "files at the root") touches the
 * root's own files — the manifest, the lockfile, the base configs every package reads — so it
 * runs alone, whichever of them the repository happens to hold.
 */
export function matchRoot(scope: { root: ScopeEvidence | null }): SerialMatch | null {
  if (!scope.root) return null;
  return { path: '', rule: 'root', builtin: true, reason: `names the repository root (${scope.root.text})` };
}

/**
 * The first serial rule an issue's leaf matches, or null. A directory leaf matches when the
 * directory itself or any file under it does (editing `.github` touches `.github/workflows/ci.yml`).
 * `builtins` is there for `waves backtest`, which measures the configured globs without the root files.
 */
export function matchSerial(
  leaf: { path: RepoPath; kind: LeafKind },
  tree: RepoTree,
  configured: readonly string[],
  builtins: readonly string[] = BUILTIN_SERIAL_GLOBS,
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
