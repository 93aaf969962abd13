import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conventionalPrefix, createRepoTree, fileRole, holedMatch, messageTokens, rolesNamed, scanSymbols, inferCandidates, inferenceIndexOf, loadRepo, type Candidate, type RepoIndex } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

/**
 * A small tool repository where every source file has its test, a playground, a manifest and
 * configs beside it — the files a title's words also match, and that the fix rarely touches.
 */
const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'tool', private: true, workspaces: ['packages/*'] }),
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true } }),
  'packages/tool/package.json': JSON.stringify({ name: 'tool-core', main: 'src/index.ts' }),
  'packages/tool/vitest.config.ts': 'export default { test: { worker: true } };\n',
  'packages/tool/src/index.ts': "export { startServer } from './server';\n",
  'packages/tool/src/server.ts': "import { listen } from './http';\nexport function startServer(port: number) { return listen(port); }\n",
  'packages/tool/src/http.ts': [
    'export function listen(port: number) {',
    '  if (port < 0) throw new Error(`Port ${port} is already in use`);',
    '  console.warn("Could not bind %s to the requested host", port);',
    '  return port;',
    '}',
  ].join('\n'),
  'packages/tool/src/plugins/worker.ts': 'export function workerPlugin(define: Record<string, string>) { return define; }\n',
  'packages/tool/src/plugins/css.ts': 'export function cssPlugin(url: string) { return url; }\n',
  'packages/tool/src/rules/no-floating-thing.ts': 'export const rule = { name: "no-floating-thing", create() { return {}; } };\n',
  'packages/tool/src/rules/no-floating-other.ts': 'export const rule = { name: "no-floating-other", create() { return {}; } };\n',
  'packages/tool/src/schemas.ts': 'export function looseRecord() { return {}; }\nexport function strictObject() { return {}; }\nexport function objectShape() { return {}; }\n',
  'packages/tool/tests/rules/no-floating-thing.test.ts': "import { rule } from '../../src/rules/no-floating-thing';\ntest('no-floating-thing', () => rule);\n",
  'packages/tool/tests/rules/no-floating-other.test.ts': "import { rule } from '../../src/rules/no-floating-other';\ntest('no-floating-other', () => rule);\n",
  'packages/tool/tests/server.test.ts': "import { startServer } from '../src/server';\ntest('server port', () => startServer(1));\n",
  'playground/worker/__tests__/worker.spec.ts': "test('worker define', () => 'worker');\n",
  'playground/worker/worker.ts': "self.postMessage('worker');\n",
  'playground/css/url.css': '.a { background: url(./a.png); }\n',
  'rollup.config.mjs': "export default { input: 'packages/tool/src/index.ts' };\n",
};

let repo: TempRepo;
let index: RepoIndex;

beforeAll(async () => {
  repo = await TempRepo.create(FILES);
  // A history where tests change with every fix: their kind's prior alone would put them first.
  const commit = async (files: string[], subject: string) => {
    await repo.write(Object.fromEntries(files.map((f) => [f, `${FILES[f]}\n// ${subject}\n`])));
    FILES[files[0]!] = `${FILES[files[0]!]}\n// ${subject}\n`;
    await repo.git('add', '-A');
    await repo.git('-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid', 'commit', '-q', '-m', subject);
  };
  await commit(['packages/tool/tests/rules/no-floating-thing.test.ts', 'packages/tool/tests/server.test.ts'], 'test: more cases');
  await commit(['packages/tool/tests/rules/no-floating-other.test.ts', 'playground/worker/__tests__/worker.spec.ts'], 'test: more cases again');
  index = await loadRepo(repo.root, { cache: false });
});
afterAll(async () => {
  await repo.dispose();
});

function infer(title: string, body = ''): Candidate[] {
  return inferCandidates({ title, body }, inferenceIndexOf(index), createRepoTree(index.files, index.packages));
}

describe('scope inference ranks the source a fix goes to', () => {
  it('ranks a source above its test, playground, manifest and configs unless the title names their role', () => {
    const found = infer('fix(tool): server port handling');
    expect(found[0]!.path).toBe('packages/tool/src/server.ts');
    const paths = found.map((c) => c.path);
    expect(paths.indexOf('packages/tool/tests/server.test.ts')).not.toBe(0);
    // The title names tests: the test file may lead.
    const tests = infer('test: flaky server port test');
    expect(tests.map((c) => c.path)).toContain('packages/tool/tests/server.test.ts');
    // A path in the body still points at the test file itself.
    expect(infer('Failing case', 'see packages/tool/tests/server.test.ts')[0]!.path).toBe('packages/tool/tests/server.test.ts');
  });

  it('reads a bracketed or backticked kebab-case name that is a file base name as a file, first', () => {
    for (const title of ['fix(tool): [no-floating-thing] false positive on awaited calls', 'fix: crash in `no-floating-thing` with generics']) {
      const found = infer(title);
      expect(found[0]!.path).toBe('packages/tool/src/rules/no-floating-thing.ts');
      expect(found[0]!.evidence[0]).toMatchObject({ kind: 'filename', text: 'no-floating-thing' });
      expect(found[0]!.confidence).toBeGreaterThan(0.75);
      expect(found.findIndex((c) => c.path.endsWith('no-floating-thing.test.ts'))).not.toBe(0);
    }
  });

  it('reads [tag] and area: prefixes as scopes, but not commit types or error names', () => {
    expect(conventionalPrefix('[worker] build.target is ignored')).toEqual({ scopes: ['worker'], rest: 'build.target is ignored' });
    expect(conventionalPrefix('css: url() is not rebased')).toEqual({ scopes: ['css'], rest: 'url() is not rebased' });
    expect(conventionalPrefix('fix(@scope/pkg, css)!: x')).toEqual({ scopes: ['@scope/pkg', 'css'], rest: 'x' });
    expect(conventionalPrefix('[vue] fix: format')).toEqual({ scopes: ['vue'], rest: 'format' });
    expect(conventionalPrefix('[ci] format').scopes).toEqual([]);
    expect(conventionalPrefix('fix: publishing').scopes).toEqual([]);
    expect(conventionalPrefix('TypeError: x is not a function').scopes).toEqual([]);
    expect(conventionalPrefix('see https://example.com').scopes).toEqual([]);
  });

  it('reads a scope that is a source file base name as that file, whatever the prefix', () => {
    for (const title of ['fix(worker): `define` values are not replaced', '[worker] build target is ignored', 'worker: build target is ignored']) {
      const found = infer(title);
      expect(found[0]!.path).toBe('packages/tool/src/plugins/worker.ts');
      expect(found[0]!.evidence.map((e) => e.kind)).toContain('filename');
    }
    expect(infer('css: url() inside content is not rebased')[0]!.path).toBe('packages/tool/src/plugins/css.ts');
  });

  it('reads a scope that names a tool whose config file the repository has as that config, first', () => {
    const found = infer('chore(rollup): migrate commonjs to esmodule');
    expect(found[0]!.path).toBe('rollup.config.mjs');
    expect(found[0]!.evidence[0]).toMatchObject({ kind: 'filename', text: 'rollup', matched: 'rollup.config.mjs' });
    // A scope naming a source file still means the source, not a config of the same stem.
    expect(infer('fix(worker): `define` values are not replaced')[0]!.path).toBe('packages/tool/src/plugins/worker.ts');
    // Coverage is set in the test runner's config.
    expect([...rolesNamed('test: calculate coverage for src files only')].sort()).toEqual(['config', 'source', 'test']);
  });

  it('reads a title that asks to export a name as the index files that would re-export it, nearest first', () => {
    const found = infer('fix(tool): export workerPlugin from the package');
    const entry = found.find((c) => c.path === 'packages/tool/src/index.ts');
    expect(entry?.evidence).toContainEqual(
      expect.objectContaining({ kind: 'identifier', text: 'workerPlugin', matched: 'the index that would export workerPlugin from packages/tool/src/plugins/worker.ts' }),
    );
    expect(found.slice(0, 2).map((c) => c.path)).toEqual(expect.arrayContaining(['packages/tool/src/plugins/worker.ts', 'packages/tool/src/index.ts']));
    // Without the verb, the name is the declaring file's alone; "export" as a noun before no name adds nothing either.
    expect(infer('perf(tool): fewer callbacks and export workerPlugin').flatMap((c) => c.evidence).some((e) => e.matched.startsWith('the index that would export workerPlugin'))).toBe(true);
    // Export as a product's feature, not the verb of the subject: "Export to PDF from X", "the menu exports HTML via X".
    for (const title of ['fix(tool): workerPlugin drops define values', 'fix: export of the report is slow', 'Export to PDF from workerPlugin gives blank pages', 'fix: the menu exports HTML via workerPlugin']) {
      expect(infer(title).flatMap((c) => c.evidence).some((e) => e.matched.startsWith('the index that would export'))).toBe(false);
    }
  });

  it('matches a message as written against a literal with template holes, %s and {0}', () => {
    const found = infer('strictPort fails with "Port 5173 is already in use" although the port is free');
    expect(found[0]!.path).toBe('packages/tool/src/http.ts');
    expect(found[0]!.evidence[0]).toMatchObject({ kind: 'message', text: 'Port 5173 is already in use', matched: '"Port ${} is already in use"' });
    // The scan keeps a template literal whole, each substitution written `${}`.
    expect((index.symbols ?? index.readSymbols?.())?.get('packages/tool/src/http.ts')?.literals).toContain('Port ${} is already in use');
    const printf = infer('Startup warns', 'The log says:\n```\nWarning: Could not bind 0.0.0.0:8080 to the requested host.\n```');
    expect(printf[0]!.path).toBe('packages/tool/src/http.ts');
    expect(printf[0]!.evidence.map((e) => e.kind)).toContain('message');
    // A hole stands for one word, not for a sentence.
    expect(infer('"Port is really not at all already in use"').some((c) => c.evidence.some((e) => e.kind === 'message'))).toBe(false);
  });

  it('keeps whole template literals, nested ones too, and none past the cap', () => {
    const { literals } = scanSymbols('const a = `outer message ${`inner message ${x} here`} and ${y} done`;\nconst b = `cut ${x} ' + 'x'.repeat(400) + '`;\n');
    expect(literals).toEqual(expect.arrayContaining(['outer message ${} and ${} done', 'inner message ${} here']));
    expect(literals.some((l) => l.startsWith('cut ${}'))).toBe(false);
  });

  it('reads a declared name written lower-case or glued to the next word', () => {
    for (const title of ['looserecord drops unknown keys', 'strictObjectinside a union fails to parse']) {
      const found = infer(title);
      expect(found[0]!.path).toBe('packages/tool/src/schemas.ts');
      expect(found[0]!.evidence.find((e) => e.kind === 'identifier')?.matched).toMatch(/^declares (looserecord|strictobject) \(any case\)$/);
    }
    // A one-word name is a word of prose as much as a name: `Listen` is not read as `listen`.
    expect(infer('Listening stops after reload').flatMap((c) => c.evidence).some((e) => e.kind === 'identifier')).toBe(false);
  });

  it('tells the role of a file and the roles a title names', () => {
    expect(fileRole('packages/a/src/x.ts')).toBe('source');
    expect(fileRole('packages/a/src/__tests__/x.ts')).toBe('test');
    expect(fileRole('packages/vite/src/node/__tests_dts__/plugin.ts')).toBe('test');
    expect(fileRole('packages/a/x.spec.tsx')).toBe('test');
    expect(fileRole('packages/a/test/fixtures/b/c.ts')).toBe('fixture');
    expect(fileRole('playground/worker/worker.ts')).toBe('playground');
    expect(fileRole('play.ts')).toBe('playground');
    expect(fileRole('examples/basic/src/app.ts')).toBe('example');
    expect(fileRole('packages/a/package.json')).toBe('manifest');
    expect(fileRole('packages/a/tsconfig.build.json')).toBe('config');
    expect(fileRole('packages/a/vitest.config.mts')).toBe('config');
    expect(fileRole('.github/workflows/ci.yml')).toBe('ci');
    expect([...rolesNamed('fix(ci): flaky e2e test in the workflow')].sort()).toEqual(['ci', 'config', 'source', 'test']);
    expect([...rolesNamed('fix: dark mode')]).toEqual(['source']);
    // A chore is as often a config's change as a source's: configs are not ranked down for it.
    expect([...rolesNamed('chore: remove unused vite')].sort()).toEqual(['config', 'source']);
    expect(rolesNamed('4.3.0').has('manifest')).toBe(true);
    expect(rolesNamed('constructor toString __proto__').size).toBe(1);
  });

  it('matches holes word by word, bounded, on hostile text', () => {
    expect(holedMatch('Port ${} is already in use', messageTokens('Port 5173 is already in use.'))).toBe(true);
    expect(holedMatch('Could not bind %s to the requested host', messageTokens('bind 0.0.0.0:80 to the requested'))).toBe(true);
    expect(holedMatch('Expected {0} arguments', messageTokens('Expected 3 arguments, got 2'))).toBe(true);
    expect(holedMatch('${} ${} ${}', messageTokens('any three words'))).toBe(false);
    expect(holedMatch('Port ${} is in use', messageTokens('Port is not in use'))).toBe(false);
    // A hole at an edge of the match swallows a word nothing checked: two common words between holes are no match.
    expect(holedMatch('Provider ${} failed with ${} error: ${}', messageTokens('request failed with timeout'))).toBe(false);
    expect(holedMatch('${} failed with ${}', messageTokens('Upload failed with 413'))).toBe(false);
    // Three solid words are, and so is a run whose edges are solid.
    expect(holedMatch('Provider ${} failed with ${} error: ${}', messageTokens('Provider openai failed with 429 error: quota'))).toBe(true);
    expect(holedMatch('Provider ${} failed with ${} error: ${}', messageTokens('failed with 429 error:'))).toBe(true);
    const hostile = `${'${} '.repeat(5000)}x`;
    expect(holedMatch(hostile, messageTokens('a '.repeat(10_000)))).toBe(false);
  });
});
