import { cp, mkdtemp, rm, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRepoGraph, isSourceFile, listRepoFiles, ModuleResolver, readWorkspace, scanImports, type RepoGraph } from '@waves/planner';
import { readFileSync } from 'node:fs';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

function edges(graph: RepoGraph): string[] {
  return graph.mapEdges((_e, attrs, from, to) => `${from} -> ${to} (${attrs.kinds.join(',')})`).sort();
}

describe('scanImports', () => {
  it('tells every kind of import apart', () => {
    const text = [
      "import a from './a';",
      "import type { B } from './b';",
      "import { type C } from './c';",
      "export * from './d';",
      "export * as ns from './e';",
      "export type * as types from './f';",
      "export { g } from './g';",
      "export type { H } from './h';",
      "const i = await import('./i');",
      "const j = require('./j');",
      "import k = require('./k');",
      "type L = typeof import('./l');",
      "import './m';",
      "import type from './n';",
    ].join('\n');
    expect(scanImports(text)).toEqual([
      { specifier: './a', kind: 'static' },
      { specifier: './b', kind: 'type' },
      { specifier: './c', kind: 'static' },
      { specifier: './d', kind: 'reexport' },
      { specifier: './e', kind: 'reexport' },
      { specifier: './f', kind: 'type' },
      { specifier: './g', kind: 'reexport' },
      { specifier: './h', kind: 'type' },
      { specifier: './i', kind: 'dynamic' },
      { specifier: './j', kind: 'require' },
      { specifier: './k', kind: 'require' },
      { specifier: './l', kind: 'type' },
      { specifier: './m', kind: 'static' },
      { specifier: './n', kind: 'static' },
    ]);
  });

  it('finds imports after JSX text with apostrophes, regexes with quotes and nested templates', () => {
    const text = [
      "import React from 'react';",
      "export const View = () => <p>Don't panic, it's fine</p>;",
      "const quote = /[\"'`]/g;",
      'const tpl = `a ${ { b: `c ${d} e` }.b } f`;',
      "const lazy = () => import('./later');",
      'export { View as Default };',
      "const x = require('./after-export');",
      'import {',
      '  a,',
      '  b as c,',
      "} from './multi';",
    ].join('\n');
    expect(scanImports(text).map((i) => i.specifier)).toEqual(['react', './later', './after-export', './multi']);
  });

  it('reads a `/` after the condition of if, while, for or with as a regular expression, and after any other `)` as a division (red team 4)', () => {
    const text = [
      'if (s) /`/.test(s);',
      "import { b } from './b';",
      'while (x) /`/.exec(x);',
      "import { c } from './c';",
      'const half = (n) / 2; const q = f(a) / g(b) / 2;',
      "import { d } from './d';",
      'if ((a) / 2 > 1) x();',
      "import { e } from './e';",
      '// a backtick ` in a comment',
    ].join('\n');
    expect(scanImports(text).map((i) => i.specifier)).toEqual(['./b', './c', './d', './e']);
  });

  it('reads a `/` after the `}` of a block as a regular expression, and after an object literal as a division (red team F4)', () => {
    const text = [
      'export function check(s: string) {',
      '  return s;',
      '}',
      "/`/.test('x');",
      "import { b } from './b';",
      'try { f(); } catch { g(); } finally { h(); }',
      "/`/.exec('y');",
      "import { c } from './c';",
      'const f = () => {}',
      "/`/.test('z');",
      "import { d } from './d';",
      'const o = { a: 1 }',
      '/ 2 + `;',
      "import { hidden } from './in-template';",
      '`;',
      "import { e } from './e';",
      '// a backtick ` in a comment',
    ].join('\n');
    expect(scanImports(text).map((i) => i.specifier)).toEqual(['./b', './c', './d', './e']);
  });

  it('reads a `/` after `export default`, `extends`, `for await (…)` and other expression keywords as a regular expression (red team F4)', () => {
    const text = [
      'export default /`/;',
      "import { b } from './b';",
      'class A extends /`/.constructor {}',
      "import { c } from './c';",
      'for await (const x of xs) /`/.test(x);',
      "import { d } from './d';",
      'switch (x) { case /`/.source: break; default: /`/.test(x); }',
      "import { e } from './e';",
      'const half = o.default / 2 + o.return / 2 + i++ / 2;',
      "import { f } from './f';",
      '// a backtick ` in a comment',
    ].join('\n');
    expect(scanImports(text).map((i) => i.specifier)).toEqual(['./b', './c', './d', './e', './f']);
  });

  it('ends a line comment and a regular expression at U+2028 and U+2029, as JavaScript does (red team F4)', () => {
    const text = "// see the notes\u2028import { b } from './b';\n// more\u2029import { c } from './c';\nconst r = /`\u2028import { d } from './d';\n";
    expect(scanImports(text).map((i) => i.specifier)).toEqual(['./b', './c', './d']);
  });

  it('reads the white space TypeScript reads above ASCII as white space, not as part of a name', () => {
    expect(scanImports("\u3000import { b } from './b';\u2003import { c } from './c';").map((i) => i.specifier)).toEqual(['./b', './c']);
  });

  it('ignores imports in comments and strings, properties named like keywords and import.meta', () => {
    const text = [
      "// import a from './no-line-comment';",
      "/* require('./no-block-comment') */",
      'const s = "import(\'./no-string\')";',
      "const t = `require('./no-template')`;",
      "loader.import('./no-property'); obj.require('./no-method');",
      'const url = import.meta.url;',
      "import real from './yes';",
    ].join('\n');
    expect(scanImports(text)).toEqual([{ specifier: './yes', kind: 'static' }]);
  });

  it('keeps module augmentations and skips ambient module declarations', () => {
    expect(scanImports("import './x';\ndeclare module './x' { interface A {} }")).toEqual([
      { specifier: './x', kind: 'static' },
      { specifier: './x', kind: 'static' },
    ]);
    expect(scanImports("declare module '*.css' { const c: string; export default c; }\ndeclare module 'virtual:thing';")).toEqual([]);
  });

  it('reads triple-slash references to files, not to packages', () => {
    const text = '/// <reference path="../types/env.d.ts" />\n/// <reference types="./global.d.ts" />\n/// <reference types="node" />\n/// <reference path="local.d.ts" />\nexport const x = 1;\n';
    expect(scanImports(text)).toEqual([
      { specifier: '../types/env.d.ts', kind: 'type' },
      { specifier: './global.d.ts', kind: 'type' },
      { specifier: './local.d.ts', kind: 'type' },
    ]);
  });

  it('reads JSON imports with import attributes and assertions, and the imports after them', () => {
    const text = [
      "import pkg from '../package.json' with { type: 'json' };",
      "import x from './x.json' assert { type: 'json' };",
      "export { default as s } from './s.json' with { type: 'json' };",
      "const y = await import('./y.json', { with: { type: 'json' } });",
      "const d = require('./d.json');",
      "import after from './after';",
    ].join('\n');
    expect(scanImports(text)).toEqual([
      { specifier: '../package.json', kind: 'static' },
      { specifier: './x.json', kind: 'static' },
      { specifier: './s.json', kind: 'reexport' },
      { specifier: './y.json', kind: 'dynamic' },
      { specifier: './d.json', kind: 'require' },
      { specifier: './after', kind: 'static' },
    ]);
  });

  it('ignores specifiers that are not literals', () => {
    expect(scanImports("const x = require(name); const y = import(`./${name}`);")).toEqual([]);
  });
});

describe('buildRepoGraph on fixture repositories', () => {
  it('resolves relative imports, .js written for .ts, index files, .cjs for .cts, and every import kind', async () => {
    const graph = await buildRepoGraph(fixture('graph-relative'));
    expect(edges(graph)).toEqual([
      'src/a.ts -> src/b.ts (static)',
      'src/a.ts -> src/c.tsx (static)',
      'src/a.ts -> src/dir/index.ts (static)',
      'src/a.ts -> src/eq.ts (require)',
      'src/a.ts -> src/lazy.ts (dynamic)',
      'src/a.ts -> src/legacy.cts (require)',
      'src/a.ts -> src/ns.ts (reexport)',
      'src/a.ts -> src/reexp.ts (reexport)',
      'src/a.ts -> src/typed.ts (type)',
      'src/a.ts -> src/types.ts (type)',
      'src/js/plain.js -> src/b.ts (require)',
      'src/js/plain.js -> src/m.mts (require)',
      'src/m.mts -> src/b.ts (static)',
    ]);
    expect(graph.getAttribute('unresolved')).toEqual([{ from: 'src/a.ts', specifier: './missing.js' }]);
    expect(graph.getAttribute('external')).toBe(2); // node:fs, lodash
    expect(graph.getNodeAttributes('src/a.ts')).toEqual({ package: 'graph-relative', dir: 'src' });
  });

  it('resolves tsconfig paths and baseUrl through extends, and per-package tsconfigs', async () => {
    const graph = await buildRepoGraph(fixture('graph-paths'));
    expect(edges(graph)).toEqual([
      'packages/sub/src/x.ts -> packages/sub/src/y.ts (static)',
      'src/main.ts -> src/app/feature.ts (static)',
      'src/main.ts -> src/lib/helper.ts (static)',
      'src/main.ts -> src/utils/index.ts (static)',
    ]);
    expect(graph.getAttribute('unresolved')).toEqual([{ from: 'src/main.ts', specifier: '@app/nope' }]);
  });

  it('resolves pnpm workspace packages to their sources, with subpath exports, without node_modules', async () => {
    const graph = await buildRepoGraph(fixture('graph-workspace'));
    expect(edges(graph)).toEqual([
      'packages/app/src/index.ts -> packages/core/src/index.ts (static)',
      'packages/app/src/index.ts -> packages/core/src/utils/strings.ts (static)',
      'packages/app/src/index.ts -> packages/legacy/src/main.ts (static)',
    ]);
    expect(graph.getAttribute('unresolved')).toEqual([{ from: 'packages/app/src/index.ts', specifier: '@ws/core/utils/missing' }]);
    expect(graph.getAttribute('external')).toBe(1); // react
    expect(graph.getNodeAttributes('packages/core/src/index.ts').package).toBe('@ws/core');
  });

  it('resolves npm/yarn workspaces declared in package.json through the source field', async () => {
    const graph = await buildRepoGraph(fixture('graph-yarn'));
    expect(edges(graph)).toEqual(['libs/two/src/index.ts -> libs/one/src/entry.ts (static)']);
  });

  it('follows a tsconfig extends into a workspace package that was never installed', async () => {
    const graph = await buildRepoGraph(fixture('graph-tsconfig-package'), { cache: false });
    expect(edges(graph)).toEqual(['packages/app/src/main.ts -> packages/lib/src/helper.ts (static)']);
  });

  it('resolves self-references through exports with custom conditions, and package imports (#x)', async () => {
    const graph = await buildRepoGraph(fixture('graph-self-ref'), { cache: false });
    expect(edges(graph)).toEqual(['src/index.ts -> src/internal/secret.ts (static)', 'src/index.ts -> src/v3/index.ts (static)']);
  });

  it('treats styles and images as assets, unless the stylesheet is code (vanilla-extract .css.ts)', async () => {
    const graph = await buildRepoGraph(fixture('graph-assets'), { cache: false });
    expect(edges(graph)).toEqual(['src/view.tsx -> src/view.css.ts (static)']);
    expect(graph.getAttribute('unresolved')).toEqual([]);
    expect(graph.getAttribute('external')).toBe(3);
  });

  it('makes imported JSON files nodes, with the kind of their import, workspace packages\' included', async () => {
    const graph = await buildRepoGraph(fixture('graph-json'), { cache: false });
    expect(edges(graph)).toEqual([
      'src/config.ts -> packages/core/src/index.ts (static)',
      'src/config.ts -> src/settings.json (reexport)',
      'src/config.ts -> src/x.json (static)',
      'src/data.ts -> src/data.json (require)',
      'src/lazy.ts -> src/y.json (dynamic)',
      'src/version.ts -> package.json (static)',
      'src/ws.ts -> packages/core/data/table.json (static)',
      'src/ws.ts -> packages/core/package.json (static)',
    ]);
    // Only the JSON files something imports are nodes; a missing one is unresolved, like a missing source.
    expect(graph.hasNode('src/unused.json')).toBe(false);
    expect(graph.order).toBe(6 + 7);
    expect(graph.getNodeAttributes('packages/core/package.json')).toEqual({ package: '@acme/core', dir: 'packages/core' });
    expect(graph.getAttribute('unresolved')).toEqual([{ from: 'src/ws.ts', specifier: './missing.json' }]);
  });

  it('resolves a path alias or a relative import of a folder with its own package.json through its main', async () => {
    const graph = await buildRepoGraph(fixture('graph-dir-package'), { cache: false });
    expect(edges(graph)).toEqual(['app/main.ts -> libs/debug/src/index.ts (static)']);
    expect(graph.getAttribute('unresolved')).toEqual([]);
  });
});

describe('the fast resolution tier', () => {
  const FIXTURES = ['graph-relative', 'graph-paths', 'graph-workspace', 'graph-yarn', 'graph-tsconfig-package', 'graph-self-ref', 'graph-dir-package', 'graph-assets', 'graph-json', 'cli-repo'];
  for (const name of FIXTURES) {
    it(`agrees with TypeScript's own resolution on ${name}`, async () => {
      const root = fixture(name);
      const { files } = await listRepoFiles(root);
      const { members } = await readWorkspace(root, files);
      const fast = new ModuleResolver({ root, files, members });
      const reference = new ModuleResolver({ root, files, members });
      let compared = 0;
      for (const file of files.filter(isSourceFile)) {
        for (const { specifier } of scanImports(readFileSync(path.join(root, file), 'utf8'))) {
          expect(fast.resolve(specifier, file), `${file}: ${specifier}`).toEqual(reference.resolveWithTypeScript(specifier, file));
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(0);
    });
  }
});

describe('listing files', () => {
  const temps: string[] = [];
  afterAll(async () => {
    for (const dir of temps) await rm(dir, { recursive: true, force: true });
  });

  it('walks a directory outside git, skipping node_modules, dist, build and coverage', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'waves-walk-'));
    temps.push(dir);
    await cp(fixture('graph-relative'), dir, { recursive: true });
    for (const skipped of ['node_modules/x', 'dist', 'build', 'coverage']) {
      await mkdir(path.join(dir, skipped), { recursive: true });
      await writeFile(path.join(dir, skipped, 'junk.ts'), "import './nothing';\n");
    }
    const listing = await listRepoFiles(dir);
    expect(listing.git).toBe(false);
    expect(listing.files.some((f) => /node_modules|dist|build|coverage/.test(f))).toBe(false);
    const graph = await buildRepoGraph(dir);
    expect(graph.size).toBe(13);
  });
});
