/**
 * A workspace package's `exports` and `imports`, as the resolver reads them from a hostile manifest:
 * patterns read once per manifest, at most `MAX_PATTERN_KEYS` of them, and the pattern Node picks.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModuleResolver, type WorkspaceMember } from '@waves/planner';
import { exportsKeysArb, exportsSubpathArb } from '../arbitraries.js';

const ROOT = '/nonexistent-waves-root';

function resolver(exports: Record<string, unknown>, files: string[]): ModuleResolver {
  const members: WorkspaceMember[] = [{ name: 'p', dir: 'packages/p', manifest: { name: 'p', exports } }];
  return new ModuleResolver({ root: ROOT, files: ['src/q.ts', 'packages/p/package.json', ...files], members });
}

/** The pattern Node picks (PATTERN_KEY_COMPARE): one `*`, the longest prefix, then the longest key, first written first. */
function nodePick(keys: readonly string[], subpath: string): { index: number; match: string | null } | null {
  const exact = keys.indexOf(subpath);
  if (exact >= 0) return { index: exact, match: null };
  let best: { index: number; match: string } | null = null;
  keys.forEach((key, index) => {
    const star = key.indexOf('*');
    if (star < 0 || key.lastIndexOf('*') !== star) return;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (!subpath.startsWith(prefix) || !subpath.endsWith(suffix) || subpath.length < prefix.length + suffix.length) return;
    const current = best ? keys[best.index]! : null;
    if (current === null || star > current.indexOf('*') || (star === current.indexOf('*') && key.length > current.length)) {
      best = { index, match: subpath.slice(prefix.length, subpath.length - suffix.length) };
    }
  });
  return best;
}

describe('exports patterns of a workspace package', () => {
  it('resolves 20,000 imports of a package through 4,000 patterns to their files', () => {
    const exports: Record<string, string> = {};
    for (let i = 0; i < 4000; i++) exports[`./m${i}/*`] = `./impl/m${i}/*.ts`;
    const files = Array.from({ length: 20_000 }, (_, i) => `packages/p/impl/m${i % 4000}/f${i}.ts`);
    const r = resolver(exports, files);
    for (let i = 0; i < 20_000; i++) expect(r.resolve(`p/m${i % 4000}/f${i}`, 'src/q.ts')).toEqual({ kind: 'file', path: files[i] });
    expect(r.skippedConfigs.size).toBe(0);
  });

  it('honours the first 4,096 patterns of a manifest of 20,000, and names it as read in part', () => {
    const exports: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) exports[`./m${i}/*`] = `./impl/m${i}/*.ts`;
    const files = Array.from({ length: 20_000 }, (_, i) => `packages/p/impl/m${i}/x.ts`);
    const r = resolver(exports, files);
    const kinds = files.map((_, i) => r.resolve(`p/m${i}/x`, 'src/q.ts').kind);
    expect(kinds.slice(0, 4096).every((k) => k === 'file')).toBe(true);
    expect(kinds.slice(4096).every((k) => k === 'unresolved')).toBe(true);
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'packages/p/package.json': 'read in part: its exports hold 20,000 `*` patterns, past the first 4,096 ignored' });
    // TypeScript would read the whole map again for every specifier: it is not asked.
    expect(r.fallbacks).toBe(0);
  });

  it('asks TypeScript nothing about a package whose large exports name no file for a subpath', () => {
    const exports: Record<string, string> = { './*': './nothing/*' };
    for (let i = 0; i < 300; i++) exports[`./m${i}`] = `./src/m${i}.ts`;
    const r = resolver(exports, ['packages/p/src/q.ts']);
    for (let i = 0; i < 1000; i++) expect(r.resolve(`p/z${i}`, 'packages/p/src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(r.fallbacks).toBe(0);
  });

  it('reads a subpath its exports map to a file that is no source (an archive) as an asset, and a JSON one as a node, without TypeScript', () => {
    const exports = { './onboarding.zip': './onboarding/onboarding.zip', './data': './data/table.json', './typed.zip': './typed.zip', './gone.zip': './gone.zip' };
    const r = resolver(exports, ['packages/p/onboarding/onboarding.zip', 'packages/p/data/table.json', 'packages/p/typed.zip', 'packages/p/typed.zip.d.ts']);
    expect(r.resolve('p/onboarding.zip', 'src/q.ts')).toEqual({ kind: 'external' });
    expect(r.resolve('p/data', 'src/q.ts')).toEqual({ kind: 'file', path: 'packages/p/data/table.json' });
    expect(r.fallbacks).toBe(0);
    // A declaration beside the archive stands for it: it is the file, as TypeScript reads it.
    expect(r.resolve('p/typed.zip', 'src/q.ts')).toEqual({ kind: 'file', path: 'packages/p/typed.zip.d.ts' });
    // A target that is not in the repository is still TypeScript's to judge: nothing is made up.
    expect(r.resolve('p/gone.zip', 'src/q.ts').kind).not.toBe('file');
  });

  it('should always pick the pattern Node picks: the longest prefix, then the longest key; a key with two `*` never', () => {
    fc.assert(
      fc.property(exportsKeysArb, exportsSubpathArb, (keys, subpath) => {
        // Every key's target, filled in for this subpath, is a file: which one resolves tells the key picked.
        const exports: Record<string, string> = {};
        const files: string[] = [];
        keys.forEach((key, i) => {
          exports[key] = `./src/t${i}-*.ts`;
          const pick = nodePick([key], subpath);
          if (pick) files.push(`packages/p/src/t${i}-${pick.match ?? '*'}.ts`);
        });
        const expected = nodePick(keys, subpath);
        const got = resolver(exports, files).resolve(`p${subpath.slice(1)}`, 'src/q.ts');
        if (expected === null) expect(got.kind).not.toBe('file');
        else expect(got).toEqual({ kind: 'file', path: `packages/p/src/t${expected.index}-${expected.match ?? '*'}.ts` });
      }),
    );
  });
});

describe('exports targets of a workspace package', () => {
  const HUGE = { './*': `./${'*'.repeat(1_000_000)}` };

  it('ignores a target with a million `*` as malformed, and names the manifest as read in part', () => {
    const r = resolver(HUGE, []);
    expect(r.resolve(`p/${'a'.repeat(600)}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'packages/p/package.json': 'read in part: 1 exports target(s) with more than 16 `*` ignored' });
  });

  it('substitutes every `*` of a target with a few, as Node does', () => {
    const r = resolver({ './*': './src/*/*.ts' }, ['packages/p/src/x/x.ts']);
    expect(r.resolve('p/x', 'src/q.ts')).toEqual({ kind: 'file', path: 'packages/p/src/x/x.ts' });
    expect(r.skippedConfigs.size).toBe(0);
  });

  it('never builds a target longer than 4 KB', () => {
    const stars = `./impl/${'*'.repeat(16)}.ts`;
    const r = resolver({ './*': stars }, [`packages/p/impl/${'a'.repeat(16)}.ts`, `packages/p/impl/${'a'.repeat(300 * 16)}.ts`]);
    expect(r.resolve('p/a', 'src/q.ts')).toEqual({ kind: 'file', path: `packages/p/impl/${'a'.repeat(16)}.ts` });
    expect(r.resolve(`p/${'a'.repeat(300)}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
  });

  it('hides a manifest with a malformed target from TypeScript, which would build it', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'waves-stars-'));
    try {
      mkdirSync(path.join(root, 'src'));
      writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'p', exports: HUGE, imports: { '#*': HUGE['./*'] } }));
      writeFileSync(path.join(root, 'src/q.ts'), '');
      const members: WorkspaceMember[] = [{ name: 'p', dir: '', manifest: { name: 'p', exports: HUGE } }];
      const r = new ModuleResolver({ root, files: ['package.json', 'src/q.ts'], members });
      // A self-reference and a package import, as TypeScript alone resolves them.
      expect(r.resolveWithTypeScript(`p/${'a'.repeat(600)}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
      expect(r.resolveWithTypeScript(`#${'a'.repeat(600)}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
      expect(r.skippedConfigs.get('package.json')).toMatch(/exports target\(s\) with more than 16 `\*` ignored; read in part: 1 imports target/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a key with thousands of targets', () => {
  /** The red team's manifest: 80,000 fallbacks of one pattern, `./<i in base 36>` then 16 `*` (the most a target may hold). */
  const FALLBACKS = Array.from({ length: 80_000 }, (_, i) => `./${i.toString(36)}${'*'.repeat(16)}`);
  /** A subpath of 250 characters: each fallback it fills in is 4 KB, just under the longest built. */
  const long = (c: string) => c.repeat(250);
  /** The file fallback `i` names for the subpath `long(c)`. */
  const named = (i: number, c: string) => `${i.toString(36)}${long(c).repeat(16)}.ts`;
  const CROWDED = 'read in part: 1 exports key(s) with more than 16 targets (fallbacks and conditions together), past the first 16 ignored';

  it('honours the first 16 of 80,000 fallbacks of a pattern, and names the manifest as read in part', () => {
    // The 16th fallback names a file for one subpath, the 17th for another: the first resolves, the second does not.
    const r = resolver({ './*': FALLBACKS }, [`packages/p/${named(15, 'c')}`, `packages/p/${named(16, 'd')}`]);
    expect(r.resolve(`p/${long('c')}`, 'src/q.ts')).toEqual({ kind: 'file', path: `packages/p/${named(15, 'c')}` });
    // Every fallback built for each of these would be 80,000 × 4 KB an import, kept: gigabytes.
    for (let i = 0; i < 16; i++) expect(r.resolve(`p/${i}${long('a')}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(r.resolve(`p/${long('d')}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'packages/p/package.json': CROWDED });
    // TypeScript would build and try all 80,000: it is not asked.
    expect(r.fallbacks).toBe(0);
  });

  it('counts nested conditions with fallbacks, and honours the targets the resolver tries first', () => {
    // 40 conditions of 1,000 fallbacks each, `types` written last: the resolver tries `types` first, then the
    // others as written, so `types` and the first 15 fallbacks of `c0` are honoured.
    const value: Record<string, string[]> = {};
    for (let c = 0; c < 40; c++) value[`c${c}`] = Array.from({ length: 1000 }, (_, i) => `./c${c}/${i}/*.ts`);
    value.types = ['./types/*.ts'];
    const r = resolver({ './*': value }, ['packages/p/types/x.ts', 'packages/p/c0/14/y.ts', 'packages/p/c0/15/z.ts', 'packages/p/c1/0/w.ts']);
    expect(r.resolve('p/x', 'src/q.ts')).toEqual({ kind: 'file', path: 'packages/p/types/x.ts' });
    expect(r.resolve('p/y', 'src/q.ts')).toEqual({ kind: 'file', path: 'packages/p/c0/14/y.ts' });
    expect(r.resolve('p/z', 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(r.resolve('p/w', 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'packages/p/package.json': CROWDED });
  });

  it('honours the first 16 of 80,000 fallbacks of an `imports` pattern, and hides the manifest from TypeScript', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'waves-imports-'));
    try {
      mkdirSync(path.join(root, 'src'));
      writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'p', imports: { '#*': FALLBACKS } }));
      writeFileSync(path.join(root, 'src/q.ts'), '');
      // The files fallbacks name are only listed: their names are longer than a file system allows.
      const r = new ModuleResolver({ root, files: ['package.json', 'src/q.ts', named(15, 'c'), named(16, 'd')], members: [] });
      expect(r.resolve(`#${long('c')}`, 'src/q.ts')).toEqual({ kind: 'file', path: named(15, 'c') });
      for (let i = 0; i < 16; i++) expect(r.resolve(`#${i}${long('a')}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
      expect(r.resolve(`#${long('d')}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
      // TypeScript alone, which would build and try every fallback, sees no manifest at all.
      expect(r.resolveWithTypeScript(`#${long('c')}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
      expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'package.json': CROWDED.replace('exports', 'imports') });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('builds at most 16 MB of one manifest\'s targets, and names it as read in part past them', () => {
    // 16 fallbacks, all honoured, each 4 KB once built: 1,000 distinct imports would build 64 MB.
    const r = resolver({ './*': FALLBACKS.slice(0, 16) }, [`packages/p/${named(15, 'c')}`]);
    expect(r.resolve(`p/${long('c')}`, 'src/q.ts')).toEqual({ kind: 'file', path: `packages/p/${named(15, 'c')}` });
    expect(r.skippedConfigs.size).toBe(0);
    for (let i = 0; i < 1000; i++) expect(r.resolve(`p/${i}${long('a')}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'packages/p/package.json': 'read in part: its exports targets past the first 16 MB built were not built' });
    // Once the manifest is read in part, a subpath it names no file for is settled: TypeScript, which would build them too, is not asked.
    const asked = r.fallbacks;
    for (let i = 1000; i < 1100; i++) expect(r.resolve(`p/${i}${long('a')}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(r.fallbacks).toBe(asked);
  });
});
