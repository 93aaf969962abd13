/**
 * Globs over repository paths (picomatch, dotfiles included), shared by the graph builder
 * (workspace patterns), scope (lanes, serial paths) and harvest (fences).
 */
import picomatch from 'picomatch';
import type { RepoPath } from '../types.js';

export function isGlob(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}

const matchers = new Map<string, (path: string) => boolean>();

/** A cached matcher for a glob (dotfiles included: `.github/**` must match). */
export function globMatcher(pattern: string): (path: string) => boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = picomatch(pattern, { dot: true });
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/** Normalises a config path or glob: no `./`, no trailing slash. */
export function normalisePattern(pattern: string): string {
  return pattern.trim().replace(/^\.\/+/, '').replace(/\/+$/, '');
}
