/**
 * A tsconfig's `paths` as the resolver reads them from a hostile repository: patterns indexed once,
 * each answer kept, at most `MAX_PATHS_ENTRIES` entries honoured — and the same answer TypeScript gives.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ModuleResolver } from '@waves/planner';
import { bareSpecifierArb, pathsKeysArb } from '../arbitraries.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A repository of a tsconfig and the listed files (empty sources), and its resolver; `listed` files are only listed. */
function repo(tsconfig: unknown, files: string[], listed: string[] = []): ModuleResolver {
  const root = mkdtempSync(path.join(tmpdir(), 'waves-paths-'));
  temps.push(root);
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), '');
  }
  return new ModuleResolver({ root, files: ['tsconfig.json', 'src/q.ts', ...files, ...listed], members: [] });
}

describe('tsconfig paths', () => {
  it('honours the first 4,096 of 70,000 entries, and names the tsconfig as read in part', () => {
    const paths: Record<string, string[]> = {};
    for (let i = 0; i < 70_000; i++) paths[`p${i}/*`] = [`src/p${i}/*`];
    const r = repo({ compilerOptions: { baseUrl: '.', paths } }, ['src/p0/x.ts', 'src/p4095/x.ts', 'src/p4096/x.ts', 'src/p69999/x.ts']);
    expect(r.resolve('p0/x', 'src/q.ts')).toEqual({ kind: 'file', path: 'src/p0/x.ts' });
    expect(r.resolve('p4095/x', 'src/q.ts')).toEqual({ kind: 'file', path: 'src/p4095/x.ts' });
    expect(r.resolve('p4096/x', 'src/q.ts').kind).not.toBe('file');
    expect(r.resolve('p69999/x', 'src/q.ts').kind).not.toBe('file');
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'tsconfig.json': 'read in part: its paths hold 70,000 entries, past the first 4,096 ignored' });
  });

  it('resolves 100,000 distinct specifiers through 4,096 patterns, the missing ones as missing', () => {
    const paths: Record<string, string[]> = {};
    for (let i = 0; i < 4096; i++) paths[`p${i}/*`] = [`src/m${i}/*`];
    const r = repo({ compilerOptions: { baseUrl: '.', paths } }, ['src/m7/f7.ts']);
    for (let i = 0; i < 100_000; i++) {
      const got = r.resolve(`p${i % 4096}/f${i}`, 'src/q.ts');
      expect(got).toEqual(i === 7 ? { kind: 'file', path: 'src/m7/f7.ts' } : { kind: 'unresolved' });
    }
    expect(r.skippedConfigs.size).toBe(0);
  });

  it('should always resolve a bare specifier as TypeScript does: exact key, else the longest prefix, first written', () => {
    fc.assert(
      fc.property(pathsKeysArb, bareSpecifierArb, fc.boolean(), (keys, specifier, baseUrl) => {
        // Each key's substitution, filled in for this specifier, is a file: which one resolves tells the key picked.
        const paths: Record<string, string[]> = {};
        const files: string[] = [];
        keys.forEach((key, i) => {
          paths[key] = [`./t${i}/${key.includes('*') ? '*' : 'x'}`];
          const star = key.indexOf('*');
          if (star < 0) files.push(`t${i}/x.ts`);
          else if (specifier.startsWith(key.slice(0, star)) && specifier.endsWith(key.slice(star + 1)) && specifier.length > key.length - 1) {
            files.push(`t${i}/${specifier.slice(star, specifier.length - (key.length - star - 1))}.ts`);
          }
        });
        const r = repo({ compilerOptions: { ...(baseUrl ? { baseUrl: '.' } : {}), paths } }, [...new Set(files)]);
        expect(r.resolve(specifier, 'src/q.ts')).toEqual(r.resolveWithTypeScript(specifier, 'src/q.ts'));
      }),
      { numRuns: 60 },
    );
  });

  it('honours the first 8 of 100,000 substitutions of `*`, for waves and TypeScript, and names the tsconfig as read in part', () => {
    // The red team's tsconfig: every bare specifier, `react` too, matches `*`.
    const paths = { '*': Array.from({ length: 100_000 }, (_, i) => `v${i.toString(36)}/*`) };
    const r = repo({ compilerOptions: { baseUrl: '.', paths } }, ['v7/pkg7.ts', 'v8/pkg8.ts']);
    expect(r.resolve('pkg7', 'src/q.ts')).toEqual({ kind: 'file', path: 'v7/pkg7.ts' });
    // 100,000 candidates each, built, kept and probed, for each of these: minutes and gigabytes.
    for (let i = 0; i < 400; i++) expect(r.resolve(`pkg-${i}`, 'src/q.ts')).toEqual({ kind: 'external' });
    expect(r.resolve('pkg8', 'src/q.ts').kind).not.toBe('file');
    // TypeScript's fallback is handed the same entries.
    expect(r.resolveWithTypeScript('pkg7', 'src/q.ts')).toEqual({ kind: 'file', path: 'v7/pkg7.ts' });
    expect(r.resolveWithTypeScript('pkg8', 'src/q.ts').kind).not.toBe('file');
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'tsconfig.json': 'read in part: 1 paths entry with more than 8 substitutions, past the first 8 ignored' });
  });

  it('honours 8,192 substitutions across the entries of a tsconfig, and names it as read in part', () => {
    // 4,096 entries of 8 substitutions: the first 1,024 entries hold the 8,192 honoured.
    const paths: Record<string, string[]> = {};
    for (let i = 0; i < 4096; i++) paths[`p${i}/*`] = Array.from({ length: 8 }, (_, j) => `src/p${i}/${j}/*`);
    const r = repo({ compilerOptions: { baseUrl: '.', paths } }, ['src/p1023/7/x.ts', 'src/p1024/0/x.ts']);
    expect(r.resolve('p1023/x', 'src/q.ts')).toEqual({ kind: 'file', path: 'src/p1023/7/x.ts' });
    expect(r.resolve('p1024/x', 'src/q.ts').kind).not.toBe('file');
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'tsconfig.json': 'read in part: its paths hold more than 8,192 substitutions, past the first 8,192 ignored' });
  });

  it('builds at most 16 MB of candidates for one tsconfig, and names it as read in part past them', () => {
    // 8 substitutions of nearly 4 KB (deep folders: only listed, never made): each specifier builds 32 KB.
    const deep = (j: number) => `${'d/'.repeat(1900)}${j}/*`;
    const paths = { '*': Array.from({ length: 8 }, (_, j) => deep(j)) };
    const file = `${'d/'.repeat(1900)}7/first.ts`;
    const r = repo({ compilerOptions: { baseUrl: '.', paths } }, [], [file]);
    expect(r.resolve('first', 'src/q.ts')).toEqual({ kind: 'file', path: file });
    expect(r.skippedConfigs.size).toBe(0);
    for (let i = 0; i < 1000; i++) expect(r.resolve(`pkg${i}`, 'src/q.ts').kind).not.toBe('file');
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'tsconfig.json': 'read in part: its paths candidates past the first 16 MB built were not built' });
  });
});
