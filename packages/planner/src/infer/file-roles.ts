/**
 * What a candidate file is for, as a maintainer reads a bug report: the fix goes to the source;
 * tests, fixtures, examples, playgrounds, manifests, configs and CI files come along or are the
 * point only when the issue says so ("ci", "workflow", "test", "example", "tsconfig", "deps").
 * Used to rank such files below the sources unless the title names their role.
 */
import { baseName } from '../paths/repo-paths.js';
import type { RepoPath } from '../types.js';
import { splitPieces } from '../graph/text-tokens.js';
import { isCiConfig } from '../scope/ci-paths.js';
import { isControlFile } from '../scope/control-files.js';

export type FileRole = 'source' | 'test' | 'fixture' | 'example' | 'playground' | 'manifest' | 'config' | 'ci';

/** The role of a path (the first that applies: CI, fixture, example, playground, test, manifest, config, else source). */
export function fileRole(path: RepoPath): FileRole {
  if (isCiConfig(path)) return 'ci';
  if (/(?:^|\/)(?:__)?fixtures?(?:__)?\//.test(path)) return 'fixture';
  if (/(?:^|\/)(?:examples?|demos?)\//.test(path)) return 'example';
  if (/(?:^|\/)playgrounds?\//.test(path) || /^play(?:ground)?\.[^/]+$/.test(path)) return 'playground';
  if (/(?:^|\/)(?:test|tests|__tests?[a-z_]{0,20}__|__mocks__|e2e|spec|specs)\//.test(path) || /\.(?:test|spec|e2e|bench)\.[^/]+$/.test(path)) return 'test';
  const base = baseName(path);
  if (base === 'package.json' || base === 'jsr.json' || base === 'deno.json') return 'manifest';
  if (/^tsconfig[^/]*\.json$/.test(base) || /\.config\.[^/]+$/.test(base) || /^\.[^/]*rc(?:\.[^/.]+)?$/.test(base)) return 'config';
  if (path.startsWith('.')) return 'ci';
  // Any other control file (a tool's JSON config, a lockfile, a Dockerfile, `knip.ts`…) is a config too: not the point of a fix unless the title says so.
  if (isControlFile(path)) return 'config';
  return 'source';
}

/** Title words that make a role the point of the change. */
const ROLE_WORDS: ReadonlyMap<string, Exclude<FileRole, 'source'>[]> = new Map(Object.entries({
  test: ['test'],
  tests: ['test'],
  testing: ['test'],
  spec: ['test'],
  specs: ['test'],
  e2e: ['test'],
  vitest: ['test', 'config'],
  jest: ['test', 'config'],
  playwright: ['test', 'config'],
  flaky: ['test'],
  coverage: ['test', 'config'],
  fixture: ['fixture'],
  fixtures: ['fixture'],
  example: ['example'],
  examples: ['example'],
  demo: ['example'],
  playground: ['playground'],
  playgrounds: ['playground'],
  ci: ['ci', 'config'],
  workflow: ['ci'],
  workflows: ['ci'],
  github: ['ci'],
  action: ['ci'],
  actions: ['ci'],
  tsconfig: ['config'],
  config: ['config'],
  configs: ['config'],
  lint: ['config'],
  eslint: ['config'],
  prettier: ['config'],
  biome: ['config'],
  build: ['config', 'manifest'],
  chore: ['config'],
  bundle: ['config'],
  deps: ['manifest'],
  dep: ['manifest'],
  dependency: ['manifest'],
  dependencies: ['manifest'],
  peer: ['manifest'],
  package: ['manifest'],
  exports: ['manifest'],
  version: ['manifest'],
  release: ['manifest'],
  publish: ['manifest'],
  publishing: ['manifest'],
  bump: ['manifest'],
  upgrade: ['manifest'],
  engines: ['manifest'],
} satisfies Record<string, Exclude<FileRole, 'source'>[]>));

/** The roles besides source a title (or a scope) names. Bounded: the first 64 pieces. */
export function rolesNamed(text: string): Set<FileRole> {
  const roles = new Set<FileRole>(['source']);
  const pieces = splitPieces(text.slice(0, 1000), [], 64);
  for (const piece of pieces) for (const role of ROLE_WORDS.get(piece) ?? []) roles.add(role);
  // A version number as the whole title (`4.3.0`, `v1.2.3`) is a release: manifests are the point.
  if (/^\s*v?\d+\.\d+\.\d+\S*\s*$/.test(text.slice(0, 100))) roles.add('manifest');
  return roles;
}
