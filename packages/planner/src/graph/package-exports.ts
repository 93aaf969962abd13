/**
 * What a package manifest says about its module specifiers: the package name of a specifier, and
 * the targets of a subpath through `exports` (exact keys, `*` patterns, conditions) or of `#x`
 * through `imports`, as Node and TypeScript read them. Pure functions of the manifest.
 */
import { MAX_JSON_DEPTH } from './json-depth.js';
import type { PackageManifest } from './read-workspace.js';

/** Conditions tried after a tsconfig's `customConditions`, most source-like first. */
export const CONDITIONS = ['source', 'types', 'typings', 'import', 'module', 'node', 'default', 'require', 'development', 'browser'];

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; relative or odd specifiers → null. */
export function packageName(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return null;
  const parts = specifier.split('/');
  if (specifier.startsWith('@')) return parts.length >= 2 && parts[1] ? `${parts[0]}/${parts[1]}` : null;
  return parts[0] || null;
}

function conditionTargets(value: unknown, out: string[], conditions: readonly string[], depth = 0): void {
  // Never deeper than a manifest waves parses nests (json-depth.ts): the walk recurses.
  if (depth > MAX_JSON_DEPTH) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) conditionTargets(v, out, conditions, depth + 1);
  else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const condition of conditions) if (Object.hasOwn(record, condition)) conditionTargets(record[condition], out, conditions, depth + 1);
    for (const [key, v] of Object.entries(record)) if (!conditions.includes(key)) conditionTargets(v, out, conditions, depth + 1);
  }
}

/** Targets of a key in an `exports` or `imports` map: the exact key, else the longest matching `*` pattern. */
export function mappedTargets(map: Record<string, unknown>, key: string, conditions: readonly string[]): string[] {
  const out: string[] = [];
  if (Object.hasOwn(map, key)) {
    conditionTargets(map[key], out, conditions);
    return out;
  }
  const patterns = Object.keys(map)
    .filter((k) => k.includes('*'))
    .sort((a, b) => b.indexOf('*') - a.indexOf('*') || b.length - a.length);
  for (const pattern of patterns) {
    const star = pattern.indexOf('*');
    const prefix = pattern.slice(0, star);
    const suffix = pattern.slice(star + 1);
    if (key.startsWith(prefix) && key.endsWith(suffix) && key.length >= prefix.length + suffix.length) {
      const match = key.slice(prefix.length, key.length - suffix.length);
      const targets: string[] = [];
      conditionTargets(map[pattern], targets, conditions);
      out.push(...targets.map((t) => t.split('*').join(match)));
      break;
    }
  }
  return out;
}

/**
 * Candidate targets for a subpath of a package, most likely source first: `exports` (exact keys,
 * then `*` patterns), then the `source`/`types`/`module`/`main` fields for the root, then the
 * conventional `src/index` and `index`.
 */
export function exportTargets(manifest: PackageManifest, subpath: string, customConditions: readonly string[] = []): string[] {
  const out: string[] = [];
  const conditions = [...customConditions, ...CONDITIONS];
  const exports = manifest.exports;
  if (exports !== undefined && exports !== null) {
    const map =
      typeof exports === 'string' || Array.isArray(exports) || (typeof exports === 'object' && !Object.keys(exports).some((k) => k.startsWith('.')))
        ? { '.': exports }
        : (exports as Record<string, unknown>);
    out.push(...mappedTargets(map, subpath, conditions));
  }
  if (subpath === '.') {
    for (const field of ['source', 'types', 'typings', 'module', 'main'] as const) {
      const value = manifest[field];
      if (typeof value === 'string') out.push(value);
    }
    out.push('src/index', 'index');
  } else {
    out.push(subpath);
  }
  return [...new Set(out)];
}
