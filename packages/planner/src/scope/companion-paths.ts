/**
 * Companions: the tests, fixtures, docs and examples that accompany a code change, and the wiring
 * around it (manifests, configuration, CI). The subdivide rule (more than 8 files, more than 2
 * subsystems) is about the code a change spans; a source file with its test, its fixture and a
 * line of docs in three top-level folders is one change, not three subsystems, and so is one fix
 * with the manifests it bumps.
 */
import type { RepoPath } from '../types.js';

/** Folders that hold tests, fixtures, docs, examples and changesets rather than the code itself. */
const COMPANION_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  'e2e',
  '__mocks__',
  '__snapshots__',
  'fixtures',
  'fixture',
  '__fixtures__',
  'docs',
  'doc',
  'documentation',
  'examples',
  'example',
  '.changeset',
]);

/** Test files wherever they live (`x.test.ts`, `x.spec.tsx`, `x_test.go`, snapshots) and prose. */
const COMPANION_FILE = /(?:\.(?:test|spec)\.[^./]+|_test\.[^./]+|\.snap|\.(?:md|mdx|markdown|rst|adoc|txt))$/i;

/** True for a test, fixture, doc or example path (a file or a directory). */
export function isCompanionPath(path: RepoPath): boolean {
  if (COMPANION_FILE.test(path)) return true;
  return path.split('/').some((segment) => COMPANION_DIRS.has(segment));
}

/** Data and configuration formats: what a change edits beside its code, not code. */
const WIRING_EXTENSION = /\.(?:json|jsonc|json5|ya?ml|toml|ini|env|properties|lock|lockb)$/i;
/** Configuration by name: `vite.config.ts`, `vitest.config.base.mts`, `.eslintrc.cjs`, `babel.config.js`. */
const CONFIG_NAME = /\.config\.[^/]*$|^\.[^/]*rc(?:\.[^/]*)?$/i;

/**
 * Wiring: what connects code rather than being it — package manifests and lockfiles,
 * configuration (by format: JSON, YAML, TOML…; by name: `*.config.*`, `.*rc`), dotfiles, and
 * anything in a dot-folder (`.github/`, `.husky/`, `.vscode/`). A change that bumps a dependency
 * in five packages or touches five packages' build configs is one sweep, not five subsystems.
 */
export function isWiringPath(path: RepoPath): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (base.startsWith('.') || path.split('/').some((segment, i, all) => i < all.length - 1 && segment.startsWith('.'))) return true;
  return WIRING_EXTENSION.test(base) || CONFIG_NAME.test(base);
}
