/**
 * What a package manifest says about its module specifiers: the package name of a specifier, and
 * the targets of a subpath through `exports` (exact keys, `*` patterns, conditions) or of `#x`
 * through `imports`, as Node and TypeScript read them. Pure functions of the manifest.
 *
 * A manifest is the repository's word, and a hostile one may hold tens of thousands of patterns
 * that thousands of distinct imports are matched against. So each map's patterns are read once
 * (kept beside the map, in a WeakMap), indexed by their literal prefix, and each answer kept per
 * key: the cost is one sort per map and one look-up per prefix length per key, never a sort per
 * key. Past `MAX_PATTERN_KEYS` patterns the rest are ignored, and said so (`patternNotes`).
 */
import { MAX_JSON_DEPTH } from './json-depth.js';
import type { PackageManifest } from './read-workspace.js';

/** Conditions tried after a tsconfig's `customConditions`, most source-like first. */
export const CONDITIONS = ['source', 'types', 'typings', 'import', 'module', 'node', 'default', 'require', 'development', 'browser'];

/** The `*` patterns of one `exports` or `imports` map honoured; no real package comes near it. */
export const MAX_PATTERN_KEYS = 4096;

/**
 * A pattern's target substitutes its one match for each `*` it holds: a target with more than this
 * is malformed and ignored — a million `*` and a subpath of 600 characters built a string past V8's
 * limit. Node allows any number; no real package writes more than a couple.
 */
export const MAX_TARGET_STARS = 16;

/** The longest target a pattern may produce (Linux's PATH_MAX): a longer one names no file, and is not built. */
export const MAX_TARGET_LENGTH = 4096;

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

interface Pattern {
  key: string;
  prefix: string;
  suffix: string;
}

/** A map's patterns, read once: by literal prefix, and the answers given so far. */
interface PatternTable {
  /** Patterns by their prefix, the longest key first (then in the manifest's order). */
  byPrefix: Map<string, Pattern[]>;
  /** The lengths of those prefixes, longest first: Node tries the longest prefix first. */
  prefixLengths: number[];
  /** Patterns past `MAX_PATTERN_KEYS`, ignored. */
  ignored: number;
  /** Targets of honoured patterns with more than `MAX_TARGET_STARS` `*`, ignored. */
  malformed: number;
  /** Whether the map has a folder mapping (a key ending in `/`, deprecated). */
  folderKeys: boolean;
  /** How many keys the map has, patterns or not. */
  keys: number;
  /** Answers by conditions, then key. */
  answers: Map<string, Map<string, readonly string[]>>;
}

const tables = new WeakMap<object, PatternTable>();

function patternTable(map: Record<string, unknown>): PatternTable {
  let table = tables.get(map);
  if (table) return table;
  const keys = Object.keys(map);
  table = { byPrefix: new Map(), prefixLengths: [], ignored: 0, malformed: 0, folderKeys: false, keys: keys.length, answers: new Map() };
  let honoured = 0;
  for (const key of keys) {
    if (key.endsWith('/')) table.folderKeys = true;
    const star = key.indexOf('*');
    // Node and TypeScript read a key with exactly one `*` as a pattern, and ignore one with more.
    if (star < 0 || key.indexOf('*', star + 1) >= 0) continue;
    if (honoured === MAX_PATTERN_KEYS) {
      table.ignored++;
      continue;
    }
    honoured++;
    // Every target of the pattern, whatever the conditions: their `*` are counted once, here.
    const targets: string[] = [];
    conditionTargets(map[key], targets, []);
    for (const target of targets) if (starsIn(target) > MAX_TARGET_STARS) table.malformed++;
    const prefix = key.slice(0, star);
    const group = table.byPrefix.get(prefix);
    const pattern = { key, prefix, suffix: key.slice(star + 1) };
    if (group) group.push(pattern);
    else table.byPrefix.set(prefix, [pattern]);
  }
  // Stable: keys of one length stay in the manifest's order, as a full sort would leave them.
  for (const group of table.byPrefix.values()) group.sort((a, b) => b.key.length - a.key.length);
  table.prefixLengths = [...new Set([...table.byPrefix.keys()].map((p) => p.length))].sort((a, b) => b - a);
  tables.set(map, table);
  return table;
}

/** How many `*` a target holds, counted no further than past `MAX_TARGET_STARS`. */
function starsIn(target: string): number {
  let stars = 0;
  for (let at = target.indexOf('*'); at >= 0 && stars <= MAX_TARGET_STARS; at = target.indexOf('*', at + 1)) stars++;
  return stars;
}

/** The pattern Node picks for `key`: the longest prefix, then the longest key; null when none matches. */
function matchPattern(table: PatternTable, key: string): { pattern: Pattern; match: string } | null {
  for (const length of table.prefixLengths) {
    if (length > key.length) continue;
    const group = table.byPrefix.get(key.slice(0, length));
    if (!group) continue;
    for (const pattern of group) {
      if (key.length >= length + pattern.suffix.length && key.endsWith(pattern.suffix)) {
        return { pattern, match: key.slice(length, key.length - pattern.suffix.length) };
      }
    }
  }
  return null;
}

/**
 * Targets of a key in an `exports` or `imports` map: the exact key, else the longest matching `*`
 * pattern. The array is shared by every caller that asks the same: read it, never change it.
 */
export function mappedTargets(map: Record<string, unknown>, key: string, conditions: readonly string[]): readonly string[] {
  const table = patternTable(map);
  const byConditions = JSON.stringify(conditions);
  let answers = table.answers.get(byConditions);
  if (!answers) table.answers.set(byConditions, (answers = new Map()));
  const known = answers.get(key);
  if (known) return known;
  const out: string[] = [];
  if (Object.hasOwn(map, key)) conditionTargets(map[key], out, conditions);
  else {
    const found = matchPattern(table, key);
    if (found) {
      const targets: string[] = [];
      conditionTargets(map[found.pattern.key], targets, conditions);
      for (const t of targets) {
        const stars = starsIn(t);
        // Measured before it is built: a malformed or overlong target is no file.
        if (stars > MAX_TARGET_STARS || t.length + stars * (found.match.length - 1) > MAX_TARGET_LENGTH) continue;
        out.push(t.split('*').join(found.match));
      }
    }
  }
  answers.set(key, out);
  return out;
}

/**
 * What waves left unread of a map's patterns, as reasons to report with its manifest (none for a
 * map it read whole). `field` names the map: `exports` or `imports`.
 */
export function patternNotes(map: Record<string, unknown>, field: 'exports' | 'imports'): string[] {
  const { ignored, malformed } = patternTable(map);
  const notes: string[] = [];
  const n = (count: number) => count.toLocaleString('en-US');
  if (ignored > 0) notes.push(`read in part: its ${field} hold ${n(MAX_PATTERN_KEYS + ignored)} \`*\` patterns, past the first ${n(MAX_PATTERN_KEYS)} ignored`);
  if (malformed > 0) notes.push(`read in part: ${n(malformed)} ${field} target(s) with more than ${MAX_TARGET_STARS} \`*\` ignored`);
  return notes;
}

/** Whether a map holds what TypeScript must never be handed: a target it would substitute a match into a million times. */
export function hasMalformedTargets(map: Record<string, unknown>): boolean {
  return patternTable(map).malformed > 0;
}

/** The `exports` of a manifest as a map of subpaths (sugar such as `"exports": "./x.js"` is `{".": …}`), made once per manifest. */
const exportMaps = new WeakMap<PackageManifest, Record<string, unknown> | null>();

export function exportsMap(manifest: PackageManifest): Record<string, unknown> | null {
  if (exportMaps.has(manifest)) return exportMaps.get(manifest)!;
  const exports = manifest.exports;
  let map: Record<string, unknown> | null = null;
  if (exports !== undefined && exports !== null) {
    map =
      typeof exports === 'string' || Array.isArray(exports) || (typeof exports === 'object' && !Object.keys(exports).some((k) => k.startsWith('.')))
        ? { '.': exports }
        : (exports as Record<string, unknown>);
  }
  exportMaps.set(manifest, map);
  return map;
}

/**
 * A map with more keys than this is read by waves alone: TypeScript walks every key, and sorts
 * every pattern, again for each specifier it is asked (4,096 patterns × 20,000 imports of a
 * package from inside it took 42 s). No real workspace package comes near it.
 */
export const MAX_FALLBACK_KEYS = 256;

/**
 * Whether waves' reading of the package's `exports` is the answer for `subpath`, so that no other
 * resolver need be asked when it names no file: the map names subpaths and neither a key nor a
 * pattern matches it (Node and TypeScript refuse it then), or the map is too large to hand to
 * TypeScript (`MAX_FALLBACK_KEYS`), or waves read it only in part (patterns past the cap, or
 * malformed targets TypeScript would build).
 */
export function exportsSettle(manifest: PackageManifest, subpath: string): boolean {
  const map = exportsMap(manifest);
  if (map === null) return false;
  const table = patternTable(map);
  if (table.ignored > 0 || table.malformed > 0 || table.keys > MAX_FALLBACK_KEYS) return true;
  // TypeScript still reads folder mappings (`"./x/": "./x/"`), which waves does not.
  if (Object.hasOwn(map, subpath) || table.folderKeys) return false;
  return matchPattern(table, subpath) === null;
}

/**
 * Candidate targets for a subpath of a package, most likely source first: `exports` (exact keys,
 * then `*` patterns), then the `source`/`types`/`module`/`main` fields for the root, then the
 * conventional `src/index` and `index`.
 */
export function exportTargets(manifest: PackageManifest, subpath: string, customConditions: readonly string[] = []): string[] {
  const out: string[] = [];
  const map = exportsMap(manifest);
  if (map !== null) out.push(...mappedTargets(map, subpath, customConditions.length === 0 ? CONDITIONS : [...customConditions, ...CONDITIONS]));
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
