/**
 * Companions: the tests, fixtures, docs and examples that accompany a code change. The subdivide
 * rule (more than 8 files, more than 2 subsystems) is about the code a change spans; a source
 * file with its test, its fixture and a line of docs in three top-level folders is one change,
 * not three subsystems.
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
