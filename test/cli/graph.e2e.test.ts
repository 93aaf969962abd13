import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { GraphReportSchema } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');
const fixture = (name: string) => path.join(ROOT, 'test/fixtures', name);

function waves(args: string[]) {
  return execa('node', [BIN, ...args], { cwd: ROOT, reject: false, stdin: 'ignore' });
}

describe('waves graph, end to end', () => {
  it('skips a tsconfig and a manifest nested thousands deep with their reason, never a stack overflow', async () => {
    let exportsMap = '"./src/index.ts"';
    for (let i = 0; i < 6000; i++) exportsMap = `{"import":${exportsMap}}`;
    const repo = await TempRepo.create({
      'package.json': '{ "name": "root", "private": true, "workspaces": ["packages/*"] }\n',
      'tsconfig.json': `{"compilerOptions":{"paths":{"a":${'['.repeat(2000)}${']'.repeat(2000)}}}}`,
      'src/a.ts': "import { b } from './b';\nimport p from 'p';\nexport const a = b + p;\n",
      'src/b.ts': 'export const b = 1;\n',
      'packages/p/package.json': `{"name":"p","exports":{".":${exportsMap}}}`,
      'packages/p/src/index.ts': 'export default 1;\n',
    });
    try {
      for (const command of [['graph', '--no-cache', '--json'], ['plan', '--from-issues', '-', '--json']]) {
        const result = await execa('node', [BIN, ...command], { cwd: repo.root, reject: false, input: '[{"number":1,"title":"a","body":"`src/a.ts`"}]' });
        expect(result.exitCode, result.stderr).toBe(0);
        expect(result.stderr).not.toMatch(/internal error|call stack/);
      }
      const report = GraphReportSchema.parse(JSON.parse((await execa('node', [BIN, 'graph', '--json'], { cwd: repo.root, reject: false, stdin: 'ignore' })).stdout));
      expect(report.skipped).toEqual(
        expect.arrayContaining([
          { file: 'tsconfig.json', reason: expect.stringMatching(/nests more than 64 levels deep/) },
          { file: 'packages/p/package.json', reason: 'not read as a manifest: it nests more than 64 levels deep' },
        ]),
      );
      // What does not depend on them is still read.
      expect(report.imports).toBeGreaterThanOrEqual(1);
    } finally {
      await repo.dispose();
    }
  });

  it('skips workspace globs whose braces expand past 64 alternatives, and matches the other hostile ones at once (red team F1)', async () => {
    const deep = `${'a/'.repeat(1600)}b`; // a 3,201-character folder
    const repo = await TempRepo.create({
      'package.json': '{ "name": "root", "private": true }\n',
      'pnpm-workspace.yaml': [
        'packages:',
        '  - "packages/*"',
        `  - "${'{a,aa}'.repeat(34)}b"`, // (a) 2^34 alternatives
        `  - '${'\\\\*a'.repeat(14)}b'`, // (b) an escaped backslash, then a wildcard
        `  - "${'{**,x}/'.repeat(12)}c"`, // (c) globstars in braces: 4,096 alternatives
        '  - "**/*a*/**/*a*/**/*a*/b"', // (d) polynomial of a high degree in picomatch
        '',
      ].join('\n'),
      'packages/x/package.json': '{ "name": "x" }\n',
      [`${'a'.repeat(51)}/package.json`]: '{ "name": "brace" }\n',
      [`${'\\a'.repeat(42)}/package.json`]: '{ "name": "backslash-no" }\n',
      [`${'\\xa'.repeat(14)}b/package.json`]: '{ "name": "backslash" }\n',
      [`${'a/'.repeat(36)}c/package.json`]: '{ "name": "globstar" }\n',
      [`${deep}/package.json`]: '{ "name": "deep" }\n',
    });
    try {
      const result = await execa('node', [BIN, 'graph', '--no-cache', '--json'], { cwd: repo.root, reject: false, stdin: 'ignore' });
      expect(result.exitCode, result.stderr).toBe(0);
      const report = GraphReportSchema.parse(JSON.parse(result.stdout));
      expect(report.packages.map((p) => p.name).sort()).toEqual(['backslash', 'deep', 'root', 'x']);
      // One line for the file: the first glob refused named, the other counted.
      expect(result.stderr.trim()).toMatch(/^waves: skipped pnpm-workspace\.yaml: read in part: its workspace glob "\{a,aa\}\{a,aa\}.*…" is not read: its braces expand to more than 64 alternatives \(and 1 more glob\(s\)\)$/);
    } finally {
      await repo.dispose();
    }
  }, 60_000);

  it('reads a manifest of 20,000 exports patterns in part and resolves 20,000 imports through the first 4,096, saying so cold and warm', async () => {
    const exports: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) exports[`./m${i}/*`] = `./impl/m${i}/*.ts`;
    const files: Record<string, string> = {
      'package.json': '{ "name": "root", "private": true, "workspaces": ["packages/*"] }\n',
      'packages/p/package.json': JSON.stringify({ name: 'p', exports }),
      'src/q.ts': Array.from({ length: 20_000 }, (_, i) => `import "p/m${i}/x";\n`).join(''),
    };
    for (let i = 0; i < 4100; i++) files[`packages/p/impl/m${i}/x.ts`] = '';
    const repo = await TempRepo.create(files);
    try {
      const warning = 'waves: skipped packages/p/package.json: read in part: its exports hold 20,000 `*` patterns, past the first 4,096 ignored';
      for (const run of ['cold', 'warm']) {
        const result = await execa('node', [BIN, 'graph', '--json'], { cwd: repo.root, reject: false, stdin: 'ignore' });
        expect(result.exitCode, `${run}: ${result.stderr}`).toBe(0);
        expect(result.stderr.trim(), run).toBe(warning);
        const report = GraphReportSchema.parse(JSON.parse(result.stdout));
        expect([report.imports, report.unresolved.length], run).toEqual([4096, 20_000 - 4096]);
      }
    } finally {
      await repo.dispose();
    }
  }, 120_000);

  it('skips a tracked link to /dev/zero, and says so in the report and on stderr, as waves plan does', async () => {
    const repo = await TempRepo.create({ 'src/a.ts': "import './zero';\n", 'issues.json': JSON.stringify([{ number: 1, title: 'a', body: '`src/a.ts`' }]) });
    try {
      symlinkSync('/dev/zero', path.join(repo.root, 'src/zero.ts'));
      await repo.git('add', '-A');
      await repo.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'zero');
      const warning = 'waves: skipped src/zero.ts: a symbolic link leading outside the repository';
      const table = await execa('node', [BIN, 'graph', '--no-cache'], { cwd: repo.root, reject: false, stdin: 'ignore' });
      expect(table.exitCode, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/Skipped \(1\)[\s\S]*src\/zero\.ts\s+│ a symbolic link leading outside the repository/);
      expect(table.stderr.trim()).toBe(warning);
      const json = await execa('node', [BIN, 'graph', '--json', '--no-cache'], { cwd: repo.root, reject: false, stdin: 'ignore' });
      expect(GraphReportSchema.parse(JSON.parse(json.stdout)).skipped).toEqual([{ file: 'src/zero.ts', reason: 'a symbolic link leading outside the repository' }]);
      const plan = await execa('node', [BIN, 'plan', '--from-issues', 'issues.json'], { cwd: repo.root, reject: false, stdin: 'ignore' });
      expect(plan.exitCode, plan.stderr).toBe(0);
      expect(plan.stderr.trim()).toBe(warning);
    } finally {
      await repo.dispose();
    }
  });

  it('reports files, edges by kind, packages, barrels and unresolved imports', async () => {
    const result = await waves(['graph', '--root', fixture('graph-workspace'), '--no-cache']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('4 source files · 3 imports (static 3)');
    expect(result.stdout).toContain('1 unresolved internal specifier(s) · 1 third-party or asset import(s)');
    expect(result.stdout).toMatch(/@ws\/app\s+│ packages\/app\s+│ 1\s+│ @ws\/core/);
    expect(result.stdout).toContain('@ws/core/utils/missing');
  });

  it('prints JSON that validates, with every edge under --edges', async () => {
    const result = await waves(['graph', '--root', fixture('graph-relative'), '--json', '--edges', '--no-cache']);
    expect(result.exitCode).toBe(0);
    const report = GraphReportSchema.parse(JSON.parse(result.stdout));
    expect(report.files).toBe(13);
    expect(report.imports).toBe(13);
    expect(report.edgesByKind).toEqual({ static: 4, type: 2, dynamic: 1, require: 4, reexport: 2 });
    expect(report.edges).toContainEqual({ from: 'src/a.ts', to: 'src/lazy.ts', kind: 'dynamic' });
    expect(report.edges!.every((e) => !path.isAbsolute(e.from) && !path.isAbsolute(e.to))).toBe(true);
  });

  it('counts imported JSON files apart from source files, and lists their edges', async () => {
    const table = await waves(['graph', '--root', fixture('graph-json'), '--no-cache']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toContain('6 source files · 7 imported JSON file(s) · 8 imports (static 5 · dynamic 1 · require 1 · reexport 1)');
    const json = await waves(['graph', '--root', fixture('graph-json'), '--json', '--edges', '--no-cache']);
    const report = GraphReportSchema.parse(JSON.parse(json.stdout));
    expect([report.files, report.jsonFiles, report.imports]).toEqual([6, 7, 8]);
    expect(report.edges).toContainEqual({ from: 'src/ws.ts', to: 'packages/core/package.json', kind: 'static' });
  });

  it('draws the packages as Mermaid and as Graphviz dot', async () => {
    const mermaid = await waves(['graph', '--root', fixture('graph-workspace'), '--format', 'mermaid', '--no-cache']);
    expect(mermaid.stdout).toBe(
      ['flowchart LR', '  p0["@ws/app (1)"]', '  p1["@ws/core (2)"]', '  p2["graph-workspace (0)"]', '  p3["legacy-lib (1)"]', '  p0 --> p1', '  p0 --> p3'].join('\n'),
    );
    const dot = await waves(['graph', '--root', fixture('graph-workspace'), '--format', 'dot', '--no-cache']);
    expect(dot.stdout).toContain('"@ws/app" -> "@ws/core";');
    expect(dot.stdout.startsWith('digraph packages {')).toBe(true);
  });

  it('draws a package whose name holds a Mermaid directive, brackets or control characters as text (red team L6)', async () => {
    const repo = await TempRepo.create({
      'package.json': '{ "name": "root", "private": true, "workspaces": ["packages/*"] }\n',
      'packages/web/package.json': JSON.stringify({ name: "x %%{init: {'theme':'dark'}}%% ]) click p0 call alert() \u001b[31m\u202e" }),
      'packages/web/src/index.ts': 'export const a = 1;\n',
    });
    try {
      const result = await execa('node', [BIN, 'graph', '--format', 'mermaid', '--no-cache'], { cwd: repo.root, reject: false, stdin: 'ignore' });
      expect(result.exitCode, result.stderr).toBe(0);
      const node = result.stdout.split('\n').find((line) => line.includes('%%'))!;
      expect(node).toMatch(/^ {2}p\d+\["x %%#123;init: #123;'theme':'dark'#125;#125;%% #93;#41; click p0 call alert#40;#41; #91;31m \(\d+\)"\]$/);
      expect(result.stdout).not.toMatch(/[{}\u001b\u202e]/);
    } finally {
      await repo.dispose();
    }
  });

  it('works on this very repository', async () => {
    const result = await waves(['graph', '--json', '--no-cache']);
    expect(result.exitCode).toBe(0);
    const report = GraphReportSchema.parse(JSON.parse(result.stdout));
    expect(report.packages.map((p) => p.name)).toEqual(expect.arrayContaining(['@waves/cli', '@waves/dispatch', '@waves/planner']));
    expect(report.packages.find((p) => p.name === '@waves/cli')!.dependsOn).toEqual(['@waves/dispatch', '@waves/planner']);
  });

  it('rejects contradictory flags and a bad root with exit code 2', async () => {
    for (const args of [['--json', '--format', 'dot'], ['--edges'], ['--root', fixture('nope')], ['--format', 'svg']]) {
      const result = await waves(['graph', ...args]);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
