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
 *
 * One key's value may be an array of 80,000 fallbacks, each substituted with a match: so a key
 * yields at most its first `MAX_KEY_TARGETS` targets, each built only when the resolver asks for
 * it (Node stops at the first valid one), never kept, and at most `MAX_BUILT_TARGET_BYTES` of
 * them are built per map. What is cached is which map key, and which match, answers a key.
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

/**
 * The targets honoured for one key, its fallbacks and nested conditions together, in the order the
 * resolver tries them (its conditions first). Node tries fallbacks only until one is valid; real
 * packages write a handful (the largest condition maps, a dozen).
 */
export const MAX_KEY_TARGETS = 16;

/**
 * The characters of pattern targets one map may have built (each at most `MAX_TARGET_LENGTH`):
 * real packages build a few kilobytes, a hostile one (16 targets × 16 `*` × a long subpath, for
 * each of thousands of distinct imports) gigabytes. Past it, targets are not built.
 */
export const MAX_BUILT_TARGET_BYTES = 16 * 1024 * 1024;

/** The keys whose pattern match is remembered per map before the memory is cleared. */
const MAX_CACHED_MATCHES = 65_536;

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; relative or odd specifiers → null. */
export function packageName(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return null;
  const parts = specifier.split('/');
  if (specifier.startsWith('@')) return parts.length >= 2 && parts[1] ? `${parts[0]}/${parts[1]}` : null;
  return parts[0] || null;
}

/** The string targets of a key's value, listed conditions first, the first `limit` of them. */
function conditionTargets(value: unknown, out: string[], conditions: readonly string[], limit: number, depth = 0): void {
  // Never deeper than a manifest waves parses nests (json-depth.ts): the walk recurses.
  if (depth > MAX_JSON_DEPTH || out.length >= limit) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) {
    for (const v of value) {
      if (out.length >= limit) return;
      conditionTargets(v, out, conditions, limit, depth + 1);
    }
  } else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const condition of conditions) if (Object.hasOwn(record, condition)) conditionTargets(record[condition], out, conditions, limit, depth + 1);
    for (const key in record) {
      if (out.length >= limit) return;
      if (Object.hasOwn(record, key) && !conditions.includes(key)) conditionTargets(record[key], out, conditions, limit, depth + 1);
    }
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
  /** Keys whose value holds more than `MAX_KEY_TARGETS` targets: the rest are ignored. */
  crowded: number;
  /** Characters of pattern targets built so far, against `MAX_BUILT_TARGET_BYTES`. */
  built: number;
  /** Pattern targets left unbuilt once `MAX_BUILT_TARGET_BYTES` were spent. */
  unbuilt: number;
  /** Whether the map has a folder mapping (a key ending in `/`, deprecated). */
  folderKeys: boolean;
  /** How many keys the map has, patterns or not. */
  keys: number;
  /** The pattern (and match) that answers a key not in the map, or null for none; cleared past `MAX_CACHED_MATCHES`. */
  matches: Map<string, { pattern: Pattern; match: string } | null>;
  /** The unbuilt targets honoured for a map key, by conditions then map key: at most `MAX_KEY_TARGETS` each. */
  templates: Map<string, Map<string, readonly string[]>>;
}

const tables = new WeakMap<object, PatternTable>();

function patternTable(map: Record<string, unknown>): PatternTable {
  let table = tables.get(map);
  if (table) return table;
  const keys = Object.keys(map);
  table = { byPrefix: new Map(), prefixLengths: [], ignored: 0, malformed: 0, crowded: 0, built: 0, unbuilt: 0, folderKeys: false, keys: keys.length, matches: new Map(), templates: new Map() };
  let honoured = 0;
  for (const key of keys) {
    if (key.endsWith('/')) table.folderKeys = true;
    // Every key's targets are counted once, here (one walk of the manifest), one past the cap at most.
    const counted: string[] = [];
    conditionTargets(map[key], counted, [], MAX_KEY_TARGETS + 1);
    if (counted.length > MAX_KEY_TARGETS) table.crowded++;
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
    conditionTargets(map[key], targets, [], Infinity);
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

/** The pattern that answers `key` (a key the map does not hold), remembered; null when none matches. */
function cachedMatch(table: PatternTable, key: string): { pattern: Pattern; match: string } | null {
  const known = table.matches.get(key);
  if (known !== undefined) return known;
  // Bounded: a key asked again after a clear is matched again, never wrongly.
  if (table.matches.size >= MAX_CACHED_MATCHES) table.matches.clear();
  const found = matchPattern(table, key);
  table.matches.set(key, found);
  return found;
}

/** The first `MAX_KEY_TARGETS` targets of a map key, in the order of `conditions`, unbuilt (shared: never change it). */
function templatesOf(table: PatternTable, map: Record<string, unknown>, mapKey: string, conditions: readonly string[]): readonly string[] {
  const byConditions = conditions.join('\0');
  let byKey = table.templates.get(byConditions);
  if (!byKey) table.templates.set(byConditions, (byKey = new Map()));
  let templates = byKey.get(mapKey);
  if (!templates) {
    const out: string[] = [];
    conditionTargets(map[mapKey], out, conditions, MAX_KEY_TARGETS);
    byKey.set(mapKey, (templates = out));
  }
  return templates;
}

/**
 * Targets of a key in an `exports` or `imports` map: the exact key, else the longest matching `*`
 * pattern, at most `MAX_KEY_TARGETS` of them. Each is built as it is asked for: a caller that
 * stops at the first it finds builds no more.
 */
export function* mappedTargets(map: Record<string, unknown>, key: string, conditions: readonly string[]): Generator<string, void, undefined> {
  const table = patternTable(map);
  if (Object.hasOwn(map, key)) {
    yield* templatesOf(table, map, key, conditions);
    return;
  }
  const found = cachedMatch(table, key);
  if (!found) return;
  const { match } = found;
  for (const template of templatesOf(table, map, found.pattern.key, conditions)) {
    const stars = starsIn(template);
    const length = template.length + stars * (match.length - 1);
    // Measured before it is built: a malformed or overlong target is no file.
    if (stars > MAX_TARGET_STARS || length > MAX_TARGET_LENGTH) continue;
    if (table.built + length > MAX_BUILT_TARGET_BYTES) {
      table.unbuilt++;
      continue;
    }
    table.built += length;
    yield template.split('*').join(match);
  }
}

/**
 * What waves left unread of a map's patterns, as reasons to report with its manifest (none for a
 * map it read whole). `field` names the map: `exports` or `imports`.
 */
export function patternNotes(map: Record<string, unknown>, field: 'exports' | 'imports'): string[] {
  const { ignored, malformed, crowded, unbuilt } = patternTable(map);
  const notes: string[] = [];
  const n = (count: number) => count.toLocaleString('en-US');
  if (ignored > 0) notes.push(`read in part: its ${field} hold ${n(MAX_PATTERN_KEYS + ignored)} \`*\` patterns, past the first ${n(MAX_PATTERN_KEYS)} ignored`);
  if (malformed > 0) notes.push(`read in part: ${n(malformed)} ${field} target(s) with more than ${MAX_TARGET_STARS} \`*\` ignored`);
  if (crowded > 0) notes.push(`read in part: ${n(crowded)} ${field} key(s) with more than ${MAX_KEY_TARGETS} targets (fallbacks and conditions together), past the first ${MAX_KEY_TARGETS} ignored`);
  // No count: the note is the same however many were left, so it is reported once.
  if (unbuilt > 0) notes.push(`read in part: its ${field} targets past the first ${MAX_BUILT_TARGET_BYTES / 1024 / 1024} MB built were not built`);
  return notes;
}

/**
 * Whether a map holds what TypeScript must never be handed: a target it would substitute a match
 * into a million times, or a key whose every one of thousands of fallbacks it would build and try.
 */
export function tooCostlyForTypeScript(map: Record<string, unknown>): boolean {
  const { malformed, crowded } = patternTable(map);
  return malformed > 0 || crowded > 0;
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
 * TypeScript (`MAX_FALLBACK_KEYS`), or waves read it only in part (patterns past the cap,
 * malformed targets TypeScript would build, keys with too many targets, or targets left unbuilt).
 */
export function exportsSettle(manifest: PackageManifest, subpath: string): boolean {
  const map = exportsMap(manifest);
  if (map === null) return false;
  const table = patternTable(map);
  if (table.ignored > 0 || table.malformed > 0 || table.crowded > 0 || table.unbuilt > 0 || table.keys > MAX_FALLBACK_KEYS) return true;
  // TypeScript still reads folder mappings (`"./x/": "./x/"`), which waves does not.
  if (Object.hasOwn(map, subpath) || table.folderKeys) return false;
  return matchPattern(table, subpath) === null;
}

/**
 * Candidate targets for a subpath of a package, most likely source first: `exports` (exact keys,
 * then `*` patterns), then the `source`/`types`/`module`/`main` fields for the root, then the
 * conventional `src/index` and `index`. Each once, built as it is asked for.
 */
export function* exportTargets(manifest: PackageManifest, subpath: string, customConditions: readonly string[] = []): Generator<string, void, undefined> {
  const seen = new Set<string>();
  function* fresh(targets: Iterable<string>): Generator<string, void, undefined> {
    for (const target of targets) {
      if (seen.has(target)) continue;
      seen.add(target);
      yield target;
    }
  }
  const map = exportsMap(manifest);
  if (map !== null) yield* fresh(mappedTargets(map, subpath, customConditions.length === 0 ? CONDITIONS : [...customConditions, ...CONDITIONS]));
  if (subpath === '.') {
    const fields: string[] = [];
    for (const field of ['source', 'types', 'typings', 'module', 'main'] as const) {
      const value = manifest[field];
      if (typeof value === 'string') fields.push(value);
    }
    yield* fresh([...fields, 'src/index', 'index']);
  } else {
    yield* fresh([subpath]);
  }
}
