/**
 * fast-check arbitraries shared by the planner's property tests: random repositories (a file
 * tree with workspace packages and a literal import graph) and random backlogs whose bodies name
 * paths, lanes, dependencies and priorities the way real issues do.
 */
import fc from 'fast-check';
import type { BacklogIssue, ChangedFile, FileChange, HistoryCommit, PlanInput, PlanOptionsInput, RepoPath } from '@waves/planner';
import { makeRepo } from './helpers/repo.js';

export interface RandomRepo {
  files: RepoPath[];
  sources: RepoPath[];
  edges: [RepoPath, RepoPath][];
  packages: { name: string; dir: string }[];
}

const ROOT_FILES = ['package.json', 'README.md', 'tsconfig.json', 'pnpm-lock.yaml', '.github/workflows/ci.yml', 'docs/guide.md'];

export const repoArb: fc.Arbitrary<RandomRepo> = fc
  .record({
    packageCount: fc.integer({ min: 2, max: 4 }),
    filesPerPackage: fc.integer({ min: 2, max: 6 }),
    edgeSeeds: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 12 }),
  })
  .map(({ packageCount, filesPerPackage, edgeSeeds }) => {
    const packages = Array.from({ length: packageCount }, (_, p) => ({ name: `@r/p${p}`, dir: `packages/p${p}` }));
    const sources: RepoPath[] = [];
    for (const pkg of packages) {
      for (let f = 0; f < filesPerPackage; f++) sources.push(f % 2 === 0 ? `${pkg.dir}/src/f${f}.ts` : `${pkg.dir}/src/sub/f${f}.ts`);
    }
    const edges: [RepoPath, RepoPath][] = [];
    const seen = new Set<string>();
    for (const [a, b] of edgeSeeds) {
      const from = sources[a % sources.length]!;
      const to = sources[b % sources.length]!;
      if (from !== to && !seen.has(`${from}>${to}`)) {
        seen.add(`${from}>${to}`);
        edges.push([from, to]);
      }
    }
    // A JSON module imported by the first source: a node of the graph like a source file.
    const json = `${packages[0]!.dir}/src/data.json`;
    edges.push([sources[0]!, json]);
    const files = [...sources, json, ...packages.map((p) => `${p.dir}/package.json`), ...ROOT_FILES].sort();
    return { files, sources, edges, packages };
  });

export interface RandomBacklog {
  issues: BacklogIssue[];
  /** Declared dependencies per issue, as written in the bodies. */
  deps: Map<number, number[]>;
}

const PRIORITIES: string[][] = [[], ['P0'], ['P1'], ['P2'], ['P3'], ['priority:high'], ['priority:low']];

/** A backlog over a repository: each issue names 0–10 paths, maybe a lane, maybe dependencies. */
export function backlogArb(repo: RandomRepo): fc.Arbitrary<RandomBacklog> {
  // Besides existing paths: a new file, two new files in one new directory, and the root itself.
  const pathChoices = [...repo.files, ...repo.packages.map((p) => `${p.dir}/`), 'packages/p0/src/new-file.ts', 'packages/p1/src/fresh/a.ts', 'packages/p1/src/fresh/b.ts', './'];
  const issueArb = fc.record({
    paths: fc.oneof(
      { weight: 12, arbitrary: fc.subarray(pathChoices.filter((p) => p.startsWith('packages/')), { maxLength: 2 }) },
      { weight: 2, arbitrary: fc.subarray(pathChoices, { maxLength: 3 }) },
      { weight: 1, arbitrary: fc.subarray(pathChoices, { maxLength: 10 }) },
    ),
    lane: fc.option(fc.constantFrom(...repo.packages.map((p) => p.dir.split('/')[1]!)), { freq: 6 }),
    deps: fc.oneof({ weight: 3, arbitrary: fc.constant<number[]>([]) }, { weight: 1, arbitrary: fc.array(fc.integer({ min: 1, max: 14 }), { maxLength: 2 }) }),
    priority: fc.constantFrom(...PRIORITIES),
    state: fc.constantFrom('open', 'open', 'open', 'open', 'closed'),
    created: fc.integer({ min: 0, max: 1000 }),
    steps: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 5 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 20 }) }),
  });
  return fc.array(issueArb, { minLength: 1, maxLength: 14 }).map((specs) => {
    const deps = new Map<number, number[]>();
    const issues = specs.map((spec, i) => {
      const number = i + 1;
      const depList = [...new Set(spec.deps.filter((d) => d !== number))];
      deps.set(number, depList);
      const lines = spec.paths.map((p) => `- \`${p}\``);
      for (let s = 0; s < spec.steps; s++) lines.push(`${s + 1}. step ${s + 1}`);
      if (depList.length > 0) lines.push(`Depends on ${depList.map((d) => `#${d}`).join(', ')}`);
      return {
        number,
        title: `Issue ${number}`,
        body: lines.join('\n'),
        labels: [...spec.priority, ...(spec.lane ? [`lane:${spec.lane}`] : [])],
        state: spec.state as 'open' | 'closed',
        createdAt: new Date(Date.parse('2026-01-01T00:00:00Z') + spec.created * 3_600_000).toISOString(),
        url: null,
        sortOrder: null,
      } satisfies BacklogIssue;
    });
    return { issues, deps };
  });
}

export const optionsArb: fc.Arbitrary<PlanOptionsInput> = fc.record({
  top: fc.integer({ min: 1, max: 15 }),
  waveSize: fc.integer({ min: 1, max: 5 }),
  maxWaves: fc.integer({ min: 1, max: 6 }),
  contentionDepth: fc.integer({ min: 0, max: 2 }),
  granularity: fc.constantFrom('file', 'dir', 'package'),
});

export interface Scenario {
  repo: RandomRepo;
  backlog: RandomBacklog;
  input: PlanInput;
}

export function scenarioArb(options: fc.Arbitrary<PlanOptionsInput> = optionsArb): fc.Arbitrary<Scenario> {
  return repoArb.chain((repo) =>
    fc.record({ backlog: backlogArb(repo), options }).map(({ backlog, options: opts }) => ({
      repo,
      backlog,
      input: {
        issues: backlog.issues,
        repo: makeRepo({ files: repo.files, imports: repo.edges, packages: repo.packages }),
        options: opts,
        now: '2026-11-29T12:00:00.000Z',
      },
    })),
  );
}

/** A repository path of 1–4 plain segments (never `.` or `..`). */
export const repoPathArb: fc.Arbitrary<string> = fc
  .array(fc.stringMatching(/^[a-z0-9_-][a-z0-9._-]{0,7}$/).filter((s) => s !== '.' && s !== '..'), { minLength: 1, maxLength: 4 })
  .map((segments) => segments.join('/'));

/**
 * Another spelling of the same path, as people and issues write it: `./` in front, `//`, `/./`
 * or a backslash between segments, a trailing `/`, surrounding spaces.
 */
export function noisySpellingArb(path: string): fc.Arbitrary<string> {
  const segments = path.split('/');
  const separator = fc.constantFrom('/', '//', '/./', '\\', '\\\\', '/.\\');
  return fc
    .record({
      lead: fc.constantFrom('', './', './/', '.\\', './././'),
      separators: fc.array(separator, { minLength: segments.length - 1, maxLength: segments.length - 1 }),
      trail: fc.constantFrom('', '/', '//', '/.', '\\', ' '),
    })
    .map(({ lead, separators, trail }) => lead + segments.map((s, i) => (i === 0 ? s : `${separators[i - 1]}${s}`)).join('') + trail);
}

/**
 * Texts that are often almost JSON: strings over JSON's punctuation, digits and literal letters,
 * and JSON texts with one stray character put in.
 */
export const jsonishTextArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'[]{}",:0123456789-+.eE tfrunlsa\\/u\n\t\r'.split('')) }),
  fc.tuple(fc.json(), fc.nat(), fc.constantFrom('x', ',', '}', ']', '"', '\u0001', ':')).map(([json, at, stray]) => {
    const cut = at % (json.length + 1);
    return `${json.slice(0, cut)}${stray}${json.slice(cut)}`;
  }),
);

/** A first-parent history over a random repository, oldest first, with the truth's raw material. */
export interface RandomHistory {
  commits: HistoryCommit[];
}

const DOC_FILES = ['README.md', 'docs/guide.md', 'pnpm-lock.yaml'];

/**
 * Commits over a repository: each edits, deletes or creates 1–5 files — its sources, its root
 * files, new files in existing or new directories — with now and then a docs-only commit, a merge,
 * a subject carrying a pull-request number (sometimes one an older commit already took).
 */
export function historyArb(repo: RandomRepo): fc.Arbitrary<RandomHistory> {
  const packages = repo.packages.map((p) => p.dir);
  const fileArb: fc.Arbitrary<ChangedFile> = fc.oneof(
    { weight: 8, arbitrary: fc.record({ path: fc.constantFrom(...repo.sources), change: fc.constantFrom<FileChange>('edit', 'edit', 'edit', 'delete') }) },
    { weight: 1, arbitrary: fc.record({ path: fc.constantFrom(...repo.files), change: fc.constant<FileChange>('edit') }) },
    {
      weight: 2,
      arbitrary: fc
        .record({ pkg: fc.constantFrom(...packages), dir: fc.constantFrom('src', 'src/sub', 'src/fresh', 'src/fresh/deep', 'lib'), name: fc.integer({ min: 0, max: 3 }) })
        .map(({ pkg, dir, name }) => ({ path: `${pkg}/${dir}/n${name}.ts`, change: 'create' as const })),
    },
    { weight: 1, arbitrary: fc.record({ path: fc.constantFrom(...DOC_FILES), change: fc.constant<FileChange>('edit') }) },
  );
  const commitArb = fc.record({
    files: fc.uniqueArray(fileArb, { minLength: 1, maxLength: 5, selector: (f) => f.path }),
    pr: fc.option(fc.integer({ min: 1, max: 30 }), { freq: 2 }),
  });
  return fc.array(commitArb, { minLength: 1, maxLength: 16 }).chain((specs) =>
    fc.tuple(fc.uniqueArray(fc.stringMatching(/^[0-9a-f]{40}$/), { minLength: specs.length, maxLength: specs.length }), fc.array(fc.boolean(), { minLength: specs.length, maxLength: specs.length })).map(([shas, merges]) => ({
      commits: specs.map((spec, i) => ({
        sha: shas[i]!,
        parents: merges[i] && i % 5 === 4 ? [`${'0'.repeat(39)}${i % 10}`, `${'1'.repeat(39)}${i % 10}`] : [`${'0'.repeat(39)}${i % 10}`],
        subject: `change ${i}${spec.pr === null ? '' : ` (#${spec.pr})`}`,
        files: spec.files,
      })),
    })),
  );
}

/**
 * Keys of a package's `exports` map over a tiny alphabet, so that prefixes, suffixes and keys of
 * one length collide often: some exact, most with one `*`, some with two (which Node ignores).
 */
export const exportsKeysArb: fc.Arbitrary<string[]> = fc.uniqueArray(
  fc.string({ unit: fc.constantFrom('a', 'b', '/', '*'), maxLength: 6 }).map((rest) => `./${rest}`),
  { maxLength: 12 },
);

/** A subpath of a package as an import names it, over the alphabet of `exportsKeysArb`. */
export const exportsSubpathArb: fc.Arbitrary<string> = fc.string({ unit: fc.constantFrom('a', 'b', '/'), maxLength: 8 }).map((rest) => `./${rest}`);

/** A bare specifier of one to three short segments, over the alphabet of `pathsKeysArb`. */
export const bareSpecifierArb: fc.Arbitrary<string> = fc.array(fc.constantFrom('a', 'b', 'ab'), { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/'));

/** Keys of a tsconfig's `paths` whose prefixes and suffixes collide often: some exact, most with one `*`, some with two. */
export const pathsKeysArb: fc.Arbitrary<string[]> = fc.uniqueArray(
  fc.array(fc.constantFrom('a', 'b', '*', 'a*', '*b'), { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/')),
  { maxLength: 10 },
);

/** A small glob over `a`, `b`, `/` and the glob characters `*`, `?`, `{`, `}`, `,`: shapes of every kind, braces unclosed and nested included. */
export const smallGlobArb: fc.Arbitrary<string> = fc.string({ unit: fc.constantFrom('a', 'b', '/', '*', '?', '{', '}', ','), minLength: 1, maxLength: 10 });

/** A repository path of one to four short segments over `a` and `b` (no trailing `/`), for `smallGlobArb`. */
export const smallGlobPathArb: fc.Arbitrary<string> = fc
  .array(fc.string({ unit: fc.constantFrom('a', 'b'), minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 })
  .map((segments) => segments.join('/'));

/**
 * Statements that fool a lexer guessing regex-or-division and template literals (red team F4):
 * regexes holding a backtick after `)`, `}`, keywords and `:`; divisions after names, `)`, `]`,
 * `++` and object literals; nested and multi-line template literals; strings and regexes with
 * quotes; U+2028/U+2029 in comments. Each is valid TypeScript on its own and next to any other.
 * None imports anything but the two comment snippets, whose import follows a line separator.
 */
const TRICKY_TS_SNIPPETS = [
  'if (s) /`/.test(s);',
  'while (s) /`/.exec(s);',
  'export function check(s: string) {\n  return s;\n}\n/`/.test(\'x\');',
  'const f = () => {}\n/`/.test(\'x\');',
  'try { g(); } catch { h(); } finally { k(); }\n/`/.exec(\'y\');',
  'switch (s) { case /`/.source: break; default: /`/.test(s); }',
  'export default /`/;',
  'class A extends /`/.constructor {}',
  'do { g(); } while (s) /`/.test(\'w\');',
  'const half = o.default / 2 + o.return / 2 + (n) / 2 + xs[0] / 2 + n! / 2;',
  'let i = 0; const j = i++ / 2 / i-- / 3;',
  'const q = f(a) / g(b) / 2;',
  'const r = /[/`\'"]/g;',
  'const r2 = /\\/`/;',
  'const obj = { a: 1 }\n/ 2 / 1;',
  'const obj2 = { a: { b: `${1}` } }.a;',
  'const t1 = `a ${`b ${c} d`} e`;',
  'const t2 = `line 1\nline 2 ${ { a: 1 }.a } line 3 ${`inner\n`}`;',
  'const tag = css`color: ${red};`;',
  'const s1 = \'it\\\'s a ` backtick\';',
  'const s2 = "a ` b // c /* d";',
  'type T = { a: string };',
  'const cmp = a < b ? c / 2 : d;',
  'label: { break label; }\n/`/.test(\'z\');',
  '// a comment\u2028import { afterLs } from \'./after-ls\';',
  '/* a block \u2029 comment */ // and a line\u2029import { afterPs } from \'./after-ps\';',
];

/**
 * The same, a doc comment with a `require` (which after a template literal sends the file to the
 * parser: see scan-imports.ts), and JSX: text with a backtick, slashes, apostrophes and URLs, spread attributes.
 */
const TRICKY_TSX_SNIPPETS = [
  ...TRICKY_TS_SNIPPETS.filter((s) => !s.includes('css`')),
  '/** @example\n * const x = require(\'./no-require-in-a-comment\');\n */',
  'export const Help = () => <p>Type ` to start a code span</p>;',
  'const el = <div className="a">Don\'t {name} / {total}</div>;',
  'const sp = <A {...props} />;',
  'const u = <a href="http://x">http://x/y</a>;',
  'const nc = <p>/* not a comment</p>;',
  'const two = <p>a ` b</p>;\nconst three = <p>`</p>;',
];

/**
 * Valid TypeScript the lexer misreads — a division after a function expression's `}`, a regex
 * after a type literal's `}` — whose swallowed text the scan must notice and hand to the parser.
 */
const MISREAD_TS_SNIPPETS = ['const fe = function () {} / 2 + `\n/*\n`;', "type Lit = { a: 1 }\n/'/.test(s) ? `\n/*\n` : 1;", 'type Lit2 = { a: 1 }\n/[//]/.source + `\n/*\n`;'];

export interface TrickyProgram {
  file: string;
  text: string;
}

function trickyProgramOf(snippets: readonly string[], file: string): fc.Arbitrary<TrickyProgram> {
  const statement = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...snippets) }, { weight: 1, arbitrary: fc.nat(99).map((n) => `import { x${n} } from './t${n}';`) });
  return fc.array(statement, { maxLength: 12 }).map((statements) => ({ file, text: [...statements, "import { x } from './target';", 'export const y = x;', '// `'].join('\n') + '\n' }));
}

/**
 * A TypeScript or TSX program of tricky statements (some the lexer misreads) with `import { xN } from './tN'` between them
 * and `import { x } from './target'` after them, closed by a comment holding a backtick (as the
 * red team's repros were, so that a swallowed import is not saved by the end of the file).
 */
export const trickyProgramArb: fc.Arbitrary<TrickyProgram> = fc.oneof(
  trickyProgramOf(TRICKY_TS_SNIPPETS, 'src/a.ts'),
  trickyProgramOf([...TRICKY_TS_SNIPPETS, ...MISREAD_TS_SNIPPETS], 'src/a.ts'),
  trickyProgramOf(TRICKY_TSX_SNIPPETS, 'src/a.tsx'),
);

/** The TypeScript programs of `trickyProgramArb` (no JSX): the lexer alone should read them right. */
export const trickyTsProgramArb: fc.Arbitrary<TrickyProgram> = trickyProgramOf(TRICKY_TS_SNIPPETS, 'src/a.ts');
