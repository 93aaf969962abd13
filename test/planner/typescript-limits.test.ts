/**
 * What TypeScript's fallback is handed of a hostile repository's configuration: it walks `rootDirs`
 * and a package's `typesVersions` again for every import it is asked about, so it sees no more of
 * them than waves honours, and each file cut is reported as read in part.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ModuleResolver } from '@waves/planner';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A repository of these files, all listed, and its resolver. */
function repo(files: Record<string, string>): ModuleResolver {
  const root = mkdtempSync(path.join(tmpdir(), 'waves-ts-limits-'));
  temps.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return new ModuleResolver({ root, files: Object.keys(files), members: [] });
}

describe('what TypeScript is handed', () => {
  it('honours the first 16 of 200,000 rootDirs, and names the tsconfig as read in part', () => {
    // TypeScript tries each relative import under every rootDir: 200,000 of them for each of 100 imports.
    const rootDirs = ['src', 'gen', ...Array.from({ length: 200_000 }, (_, i) => `r${i.toString(36)}`), 'late'];
    const r = repo({ 'tsconfig.json': JSON.stringify({ compilerOptions: { rootDirs } }), 'src/q.ts': '', 'gen/m.ts': '', 'late/n.ts': '' });
    expect(r.resolve('./m', 'src/q.ts')).toEqual({ kind: 'file', path: 'gen/m.ts' });
    for (let i = 0; i < 100; i++) expect(r.resolve(`./x${i}`, 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(r.resolve('./n', 'src/q.ts')).toEqual({ kind: 'unresolved' });
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'tsconfig.json': 'read in part: its rootDirs hold 200,003 folders, past the first 16 ignored' });
  });

  it('hides a manifest whose typesVersions map `*` to 100,000 substitutions, and names it as read in part', () => {
    // A folder with a manifest that has typesVersions is TypeScript's to read: from 50 folders, it would try every substitution from each.
    const typesVersions = { '*': { '*': Array.from({ length: 100_000 }, (_, i) => `t${i.toString(36)}/*`) } };
    const importers = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`d${i}/q.ts`, '']));
    const r = repo({ 'lib/package.json': JSON.stringify({ name: 'lib', typesVersions }), 'lib/index.ts': '', ...importers });
    for (const importer of Object.keys(importers)) expect(r.resolve('../lib', importer)).toEqual({ kind: 'file', path: 'lib/index.ts' });
    expect(Object.fromEntries(r.skippedConfigs)).toEqual({ 'lib/package.json': 'read in part: 1 typesVersions entry with more than 8 substitutions, past the first 8 ignored' });
  });
});
