import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRepoTree, extractScope, isWiringPath, type IssueScope } from '@waves/planner';

const FILES = [
  'package.json',
  'pnpm-lock.yaml',
  'tsconfig.json',
  'README.md',
  '.github/workflows/ci.yml',
  'docs/guide.md',
  'packages/planner/package.json',
  'packages/planner/src/index.ts',
  'packages/planner/src/scope/extract-scope.ts',
  'packages/planner/src/scope/repo-tree.ts',
  'packages/planner/src/waves/partition-waves.ts',
  'packages/cli/package.json',
  'packages/cli/src/index.ts',
  'packages/cli/src/commands/plan.ts',
  'packages/cli/src/render/plan-table.ts',
  'packages/dispatch/package.json',
  'packages/dispatch/src/index.ts',
  'internal/gateway/stream.go',
  'internal/gateway/stream_test.go',
  'apps/site/app/(docs)/[slug]/page.tsx',
  'apps/site/app/routes/posts.$id.tsx',
];
const PACKAGES = [
  { name: '@waves/planner', dir: 'packages/planner' },
  { name: '@waves/cli', dir: 'packages/cli' },
  { name: '@waves/dispatch', dir: 'packages/dispatch' },
];
const tree = createRepoTree(FILES, PACKAGES);

function scopeOf(body: string, labels: string[] = [], title = 'An issue'): IssueScope {
  return extractScope({ number: 7, title, body, labels }, tree, { repoSlug: 'acme/waves' });
}

function leaves(scope: IssueScope): string[] {
  return scope.leaves.map((l) => `${l.kind}:${l.path}`);
}

/** The files directly at the root of FILES: what naming the root itself stands for. */
const ROOT_FILE_LEAVES = ['file:README.md', 'file:package.json', 'file:pnpm-lock.yaml', 'file:tsconfig.json'];

interface Case {
  name: string;
  body: string;
  labels?: string[];
  title?: string;
  leaves: string[];
  unresolved?: string[];
  rejected?: string[];
  excluded?: string[];
}

const CASES: Case[] = [
  {
    name: 'look-alike and invisible names, shell variables: no path, no new folder',
    body: '- `%2e%2e/x.ts` (create)\n- `\uff0e\uff0e/etc/x.ts` (create)\n- `$HOME/x.ts` (create)\n- `docs/\u200fevil.ts` (create)\n- `packages/cli/src/index.ts`',
    leaves: ['file:packages/cli/src/index.ts'],
  },
  {
    name: 'a log line pointing into a file that does not exist: never a file or folder to create',
    body: 'at run (/Users/John Smith/proj/src/x.ts:10:3)\nsee .github/workflows/pwn.yml:1 and packages/cli/src/index.ts:3',
    leaves: ['file:packages/cli/src/index.ts'],
    unresolved: ['Smith/proj/src/x.ts:10:3', '.github/workflows/pwn.yml:1'],
  },
  {
    name: 'a path deeper than any repository (data, not a path)',
    body: '- `a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/x.ts` (create)',
    leaves: [],
    unresolved: ['a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/x.ts'],
  },
  {
    name: 'underscores that belong to the name, and emphasis that does not',
    body: '- `__tests__/x.ts` (create)\n- __packages/cli/src/index.ts__',
    leaves: ['new-dir:__tests__', 'file:packages/cli/src/index.ts'],
  },
  {
    name: 'paths written in sentences, with the punctuation prose puts after them',
    title: 'Fix packages/cli/src/commands/plan.ts.',
    // As in a list item: a file of an existing folder is a new file; one of no folder, nothing.
    body: 'Edit packages/planner/src/scope/repo-tree.ts, then packages/planner/src/index.ts. Input and/or output, v1.2/v1.3, add docs/faq.ts, see nowhere/missing.ts.',
    leaves: ['new-file:docs/faq.ts', 'file:packages/cli/src/commands/plan.ts', 'file:packages/planner/src/index.ts', 'file:packages/planner/src/scope/repo-tree.ts'],
  },
  {
    name: 'a path in a sentence after "never touch" is excluded',
    body: 'Fix packages/cli/src/index.ts but never touch packages/dispatch/src/index.ts.',
    leaves: ['file:packages/cli/src/index.ts'],
    excluded: ['packages/dispatch/src/index.ts'],
  },
  {
    name: 'an implementation plan with a file list and line anchors',
    body: [
      '## Plan',
      '1. In `packages/planner/src/scope/extract-scope.ts:40-72`, split the resolver.',
      '2. Call it from packages/cli/src/commands/plan.ts:12 after parsing.',
      '3. Add `packages/planner/src/scope/lanes.ts` (new).',
      '',
      '## Files',
      '- packages/planner/src/scope/repo-tree.ts',
      '',
      '## Acceptance criteria',
      '- [ ] tests pass',
    ].join('\n'),
    leaves: [
      'file:packages/cli/src/commands/plan.ts',
      'file:packages/planner/src/scope/extract-scope.ts',
      'new-file:packages/planner/src/scope/lanes.ts',
      'file:packages/planner/src/scope/repo-tree.ts',
    ],
  },
  {
    name: 'a lane-labelled issue with no paths',
    body: 'The CLI should print a nicer table.',
    labels: ['lane:cli', 'P1'],
    leaves: ['dir:packages/cli'],
  },
  {
    name: 'an area label naming a workspace package by its full name',
    body: '',
    labels: ['area:@waves/dispatch'],
    leaves: ['dir:packages/dispatch'],
  },
  {
    name: 'a prose-only bug report',
    body: 'When I run the tool on a big repo it is slow and sometimes the table looks wrong. Please fix.',
    leaves: [],
  },
  {
    name: 'GitHub blob and tree links into this repository',
    body: [
      'See https://github.com/acme/waves/blob/main/packages/cli/src/index.ts#L10-L20 and',
      '[the renderer](https://github.com/acme/waves/blob/feature/x/packages/cli/src/render/plan-table.ts#L3).',
      'Whole folder: https://github.com/acme/waves/tree/0123456789abcdef0123456789abcdef01234567/packages/dispatch',
    ].join('\n'),
    leaves: ['file:packages/cli/src/index.ts', 'file:packages/cli/src/render/plan-table.ts', 'dir:packages/dispatch'],
  },
  {
    name: 'a link into another repository',
    body: 'Like https://github.com/someone/else/blob/main/packages/cli/src/index.ts does.',
    leaves: [],
    unresolved: ['https://github.com/someone/else/blob/main/packages/cli/src/index.ts'],
  },
  {
    name: 'path traversal and absolute paths',
    body: 'Read `../../etc/passwd`, `/etc/shadow`, `~/.ssh/id_rsa` and [x](../../../secret.ts). Also edit `docs/guide.md`.',
    leaves: ['file:docs/guide.md'],
    rejected: ['../../etc/passwd', '/etc/shadow', '~/.ssh/id_rsa', '../../../secret.ts'],
  },
  {
    name: 'a worker boundary sentence with a never-touch list',
    body: 'Lane: gateway\nBoundaries: Edit ONLY files under internal/gateway/. NEVER touch `go.mod`, `package.json` or root files.',
    leaves: ['dir:internal/gateway'],
  },
  {
    name: 'an out-of-scope section',
    body: '## Changes\n- `packages/cli/src/index.ts`\n\n## Out of scope\n- `packages/planner/src/index.ts`\n',
    leaves: ['file:packages/cli/src/index.ts'],
    excluded: ['packages/planner/src/index.ts'],
  },
  {
    name: 'code spans that are code, not paths',
    body: 'Use `options.top` and `plan.summary`, call `foo()`, run `pnpm test` and `e.g.` nothing else; see `README.md`.',
    leaves: ['file:README.md'],
  },
  {
    name: 'a path written relative to its package',
    body: 'The bug is in `src/waves/partition-waves.ts`.',
    leaves: ['file:packages/planner/src/waves/partition-waves.ts'],
  },
  {
    name: 'an ambiguous relative path',
    body: 'Edit `src/index.ts`.',
    leaves: [],
    unresolved: ['src/index.ts'],
  },
  {
    name: 'an ambiguous relative path decided by the lane',
    body: 'Edit `src/index.ts`.',
    labels: ['lane:planner'],
    leaves: ['dir:packages/planner'],
  },
  {
    name: 'a diff in a code block',
    body: '```diff\ndiff --git a/packages/cli/src/index.ts b/packages/cli/src/index.ts\n--- a/packages/cli/src/index.ts\n+++ b/packages/cli/src/index.ts\n@@ -1 +1 @@\n-import x from "../../etc/passwd";\n```',
    leaves: ['file:packages/cli/src/index.ts'],
  },
  {
    name: 'a title naming a file',
    title: 'Crash in `packages/planner/src/index.ts`',
    body: '',
    leaves: ['file:packages/planner/src/index.ts'],
  },
  {
    name: 'a new file in a directory that does not exist: its first new directory',
    body: '- `packages/nowhere/src/x.ts`',
    leaves: ['new-dir:packages/nowhere'],
    unresolved: [],
  },
  {
    name: 'a file marked edited or deleted in a directory that does not exist yet: the file alone (another issue creates the directory)',
    body: '## Files\n- `packages/nowhere/src/x.ts` (edit)\n- `packages/nowhere/src/y.ts` (deleted)\n- `tools/gen/run.ts` (create)\n- packages/later/a.ts (modified)',
    leaves: ['new-file:packages/later/a.ts', 'new-file:packages/nowhere/src/x.ts', 'new-file:packages/nowhere/src/y.ts', 'new-dir:tools'],
    unresolved: [],
  },
  {
    name: 'a new folder inside a package, as a file in it and with a trailing slash',
    body: '- `packages/planner/src/infer/infer-scope.ts`\n- `packages/planner/src/infer/`',
    leaves: ['new-dir:packages/planner/src/infer'],
  },
  {
    name: 'a new folder written relative to its package',
    body: 'Add `scope/lanes/pick.ts`.',
    leaves: ['new-dir:packages/planner/src/scope/lanes'],
  },
  {
    name: 'a new top-level directory',
    body: 'Add `tools/gen/run.ts`.',
    leaves: ['new-dir:tools'],
  },
  {
    name: 'new directories that cannot be placed: ambiguous, under a file, or only a bare word',
    body: 'Add `src/lanes/pick.ts` and `README.md/x.ts`.\n- tools/gen/run.ts',
    leaves: [],
    unresolved: ['src/lanes/pick.ts', 'README.md/x.ts'],
  },
  {
    name: 'route folders with brackets, parentheses and dollars',
    body: '- `apps/site/app/(docs)/[slug]/page.tsx`\n- see (apps/site/app/routes/posts.$id.tsx)\n- and `apps/site/app/(docs)/[slug]`',
    leaves: ['dir:apps/site/app/(docs)/[slug]', 'file:apps/site/app/routes/posts.$id.tsx'],
  },
  {
    name: 'the repository root named as `./`: its own files',
    body: 'Tidy up `./` before the release.',
    leaves: ROOT_FILE_LEAVES,
  },
  {
    name: 'the repository root named as `/`, `.` or a link to it',
    body: 'Everything in `/`, in `.` and [here](./) needs a licence header. Also edit `docs/guide.md`.',
    leaves: ['file:README.md', 'file:docs/guide.md', 'file:package.json', 'file:pnpm-lock.yaml', 'file:tsconfig.json'],
  },
  {
    name: '"files at the root" in words',
    body: 'Update the files at the root so that they name the new package.',
    leaves: ROOT_FILE_LEAVES,
  },
  {
    name: '"root files" and "top-level files" in words, and in the title',
    title: 'Licence headers on root files',
    body: 'The top-level files need one too.',
    leaves: ROOT_FILE_LEAVES,
  },
  {
    name: 'a dot and a slash quoted as characters — listed with other signs, "a `.`", "the `/` separator" — which are not the root',
    body: '`flattenId` only replaces `/`, `:`, `.`, `#` and `+`.\nKeys holding a `.` are split. Paths joined with the `/` separator break; so do `./` prefixes.\nAlso edit `docs/guide.md`.',
    leaves: ['file:docs/guide.md'],
  },
  {
    name: 'a slash and a dot in prose, and an absolute path, which are not the root',
    body: '- read the input / output section.\n- keep `/etc/passwd` out of it.',
    leaves: [],
    rejected: ['/etc/passwd'],
  },
  {
    name: 'Windows paths in code spans: backslashes are separators, and leaving the root is still refused',
    body: [
      'Fix `packages\\planner\\src\\index.ts` and `packages\\cli\\src\\commands\\plan.ts:12`, and look at `docs\\`.',
      'Never `..\\..\\secret.ts`, `C:\\Windows\\win.ini`, `\\\\server\\share\\x.ts` or `\\etc\\passwd`.',
      'Regexes stay code: `\\d+\\.\\d+`, `\\n`, `a\\b`.',
    ].join('\n'),
    leaves: ['dir:docs', 'file:packages/cli/src/commands/plan.ts', 'file:packages/planner/src/index.ts'],
    rejected: ['..\\..\\secret.ts', 'C:\\Windows\\win.ini', '\\\\server\\share\\x.ts', '\\etc\\passwd'],
  },
  {
    name: 'root files',
    body: 'Bump `package.json`, refresh `pnpm-lock.yaml` and the workflow in `.github/workflows/ci.yml`.',
    leaves: ['file:.github/workflows/ci.yml', 'file:package.json', 'file:pnpm-lock.yaml'],
  },
];

describe('extractScope on realistic issue bodies', () => {
  for (const c of CASES) {
    it(`finds the exact scope of ${c.name}`, () => {
      const scope = extractScope({ number: 7, title: c.title ?? 'An issue', body: c.body, labels: c.labels ?? [] }, tree, { repoSlug: 'acme/waves' });
      expect(leaves(scope)).toEqual(c.leaves);
      if (c.unresolved) expect(scope.unresolved.map((u) => u.text)).toEqual(c.unresolved);
      expect(scope.rejected.map((r) => r.text)).toEqual(c.rejected ?? []);
      if (c.excluded) expect(scope.excluded).toEqual(c.excluded);
    });
  }
});

describe('extractScope metadata', () => {
  it('reads dependencies, the parent, acceptance criteria and steps', () => {
    const scope = scopeOf(
      [
        'Part of #40',
        '',
        'Depends on #12, #13 and #14. Blocked by #20. After #21.',
        '',
        '## Steps',
        '1. one',
        '2. two',
        '- [ ] three',
        '- [x] four',
        '',
        '## Acceptance criteria',
        '- works',
      ].join('\n'),
    );
    expect(scope.dependsOn).toEqual([12, 13, 14, 20, 21]);
    expect(scope.parent).toBe(40);
    expect(scope.hasAcceptanceCriteria).toBe(true);
    expect(scope.steps).toBe(4);
  });

  it('ignores references to issues of other repositories and to itself', () => {
    const scope = scopeOf('Depends on other/repo#12 and #7 and https://github.com/acme/waves/issues/33');
    expect(scope.dependsOn).toEqual([33]);
  });

  it('reports no acceptance criteria when there is no such section', () => {
    expect(scopeOf('Just do it').hasAcceptanceCriteria).toBe(false);
  });

  it('keeps the evidence of each leaf', () => {
    const scope = scopeOf('Fix `packages/cli/src/index.ts:10`', ['lane:planner']);
    const cli = scope.leaves.find((l) => l.path === 'packages/cli/src/index.ts')!;
    expect(cli.evidence).toEqual([{ source: 'body', via: 'backtick', text: 'packages/cli/src/index.ts:10', line: 1 }]);
    const planner = scope.leaves.find((l) => l.path === 'packages/planner')!;
    expect(planner.evidence).toEqual([{ source: 'label', via: 'label-lane', text: 'lane:planner', line: null }]);
  });

  it('says when the issue names the repository root itself, with the words it used', () => {
    expect(scopeOf('Tidy up `./`').root).toEqual({ source: 'body', via: 'backtick', text: './', line: 1 });
    expect(scopeOf('x', [], 'Sort the root files').root).toEqual({ source: 'title', via: 'root-phrase', text: 'root files', line: 0 });
    expect(scopeOf('Edit `docs/guide.md`').root).toBeNull();
    const never = scopeOf('Edit `docs/guide.md`. Never touch the files at the root.');
    expect(never.root).toBeNull();
    expect(never.excluded).toEqual(['README.md', 'package.json', 'pnpm-lock.yaml', 'tsconfig.json']);
  });

  it('counts a new file in a new directory as a file, in the subsystem of its nearest existing ancestor', () => {
    const scope = scopeOf('- `packages/planner/src/infer/infer-scope.ts`\n- `tools/gen/run.ts`');
    expect(scope.fileCount).toBe(2);
    expect(scope.subsystems).toEqual(['packages/planner', 'tools']);
    expect(scopeOf('Add `README.md/x.ts`').unresolved.map((u) => u.reason)).toEqual(['README.md is a file, not a directory']);
  });

  it('judges the code a change spans: tests, fixtures, docs and examples beside it count for nothing', () => {
    const flat = createRepoTree(['src/x.ts', 'src/y.ts', 'test/x.test.ts', 'test/fixtures/x.json', 'fixtures/y.json', 'docs/x.md', 'examples/demo.ts', 'lib/z.ts', '.changeset/brave-cats.md']);
    const scope = (body: string) => extractScope({ number: 1, title: 't', body, labels: [] }, flat);
    const change = scope('- `src/x.ts`\n- `test/x.test.ts`\n- `test/fixtures/x.json`\n- `fixtures/y.json`\n- `docs/x.md`\n- `examples/demo.ts`\n- `.changeset/brave-cats.md`');
    expect(change.subsystems).toEqual(['.changeset', 'docs', 'examples', 'fixtures', 'src', 'test']);
    expect(change.size).toEqual({ files: 1, subsystems: ['src'], companions: 6 });
    // Code in two places is two subsystems, whatever accompanies it.
    expect(scope('- `src/x.ts`\n- `lib/z.ts`\n- `test/x.test.ts`').size).toEqual({ files: 2, subsystems: ['lib', 'src'], companions: 1 });
    // With no code at all, all its files are judged, and it spans no subsystem.
    expect(scope('- `docs/x.md`\n- `examples/demo.ts`\n- `test/x.test.ts`').size).toEqual({ files: 3, subsystems: [], companions: 0 });
  });

  it('tells wiring from code: manifests, lockfiles, configuration by format or by name, dotfiles and dot-folders', () => {
    const wiring = ['package.json', 'packages/a/tsconfig.build.json', 'yarn.lock', 'pnpm-workspace.yaml', 'nx.json', 'src/i18n/en.json', 'packages/b/vite.config.ts', 'vitest.config.base.mts', '.eslintrc.cjs', '.prettierrc', '.nvmrc', '.github/workflows/ci.yml', '.husky/pre-commit', 'netlify.toml'];
    const code = ['src/config.ts', 'src/configure.ts', 'packages/a/src/index.ts', 'knip.ts', 'src/styles.css', 'src/schema.graphql', 'src/app.config/x.ts'];
    expect(wiring.filter((p) => !isWiringPath(p))).toEqual([]);
    expect(code.filter((p) => isWiringPath(p))).toEqual([]);
  });

  it('counts files and subsystems for the subdivide rule', () => {
    const scope = scopeOf('- `packages/cli/src/index.ts`\n- `packages/planner/src/index.ts`\n- `docs/guide.md`\n- `README.md`');
    expect(scope.fileCount).toBe(4);
    expect(scope.subsystems).toEqual(['(root)', 'docs', 'packages/cli', 'packages/planner']);
  });

  it('maps config lanes by label and by title keyword', () => {
    const lanes = { rendering: { paths: ['packages/cli/src/render/**'], keywords: ['table'] }, docs: { paths: ['docs/*.md'] } };
    const byKeyword = extractScope({ number: 1, title: 'The Table is ugly', body: '', labels: [] }, tree, { lanes });
    expect(leaves(byKeyword)).toEqual(['dir:packages/cli/src/render']);
    expect(byKeyword.lanes).toEqual(['rendering']);
    const byLabel = extractScope({ number: 2, title: 'x', body: '', labels: ['lane:docs'] }, tree, { lanes });
    expect(leaves(byLabel)).toEqual(['file:docs/guide.md']);
  });

  it('plans a 1 MB body with unusual Unicode in linear time', () => {
    const noise = 'données 🚀 \u202e\u0000 ‮ `x` '.repeat(30_000) + 'a'.repeat(300_000) + '\nx ' + '`'.repeat(100_000) + '\n# ' + ' '.repeat(150_000) + 'x\n' + 'not '.repeat(40_000) + '\n- `packages/cli/src/index.ts`';
    expect(noise.length).toBeGreaterThan(1_000_000);
    const scope = scopeOf(noise);
    expect(leaves(scope)).toEqual(['file:packages/cli/src/index.ts']);
  });
});

describe('extractScope on hostile text', () => {
  const pathish = fc.oneof(
    fc.constantFrom('../', '..', '/', '~', '`', '[x](', ')', '#L1', ':12', '\\', 'C:\\', '%2e%2e/', 'https://github.com/acme/waves/blob/main/', '\n- ', '\n## Files\n', '\u202e', '\u0000'),
    fc.constantFrom(...FILES),
    fc.string({ maxLength: 12 }),
  );
  const hostile = fc.array(pathish, { maxLength: 40 }).map((parts) => parts.join(''));

  it('never yields a leaf outside the repository, whatever the text', () => {
    fc.assert(
      fc.property(hostile, fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }), (body, labels) => {
        const scope = extractScope({ number: 1, title: body.slice(0, 50), body, labels }, tree);
        for (const leaf of scope.leaves) {
          expect(leaf.path.split('/')).not.toContain('..');
          expect(leaf.path.startsWith('/')).toBe(false);
          expect(leaf.path.startsWith('~')).toBe(false);
          if (leaf.kind === 'file') expect(tree.isFile(leaf.path)).toBe(true);
          if (leaf.kind === 'dir') expect(tree.isDir(leaf.path)).toBe(true);
          if (leaf.kind === 'new-file') expect(tree.isDir(leaf.path.slice(0, leaf.path.lastIndexOf('/')))).toBe(true);
        }
      }),
      { numRuns: Number(process.env.PROP_RUNS ?? 500) },
    );
  });
});
