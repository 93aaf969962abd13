/**
 * A title's conventional-commit scope names folders; how far they count is learnt from the
 * scope's past commits. A team that writes `fix(core)` for fixes all over its frontend lends
 * `packages/core/` little; one whose `core` commits stay in it, much.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoTree, inferCandidates, inferenceIndexOf, loadRepo, type RepoIndex } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

const IDENTITY = ['-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid'];

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'shop', private: true, workspaces: ['packages/*'] }),
  'packages/core/package.json': JSON.stringify({ name: '@shop/core' }),
  'packages/core/src/session.ts': 'export function openSession() {\n  return { menuScroll: 0 }; // where the menu was scrolled to, kept per session\n}\n',
  'packages/core/src/store.ts': 'export const store = new Map<string, string>();\n',
  'packages/ui/package.json': JSON.stringify({ name: '@shop/ui' }),
  'packages/ui/src/menu.tsx': [
    '// A menu: its items scroll when they overflow the modal they open in.',
    'export function Menu({ items }: { items: string[] }) {',
    "  return <ul style={{ overflow: 'scroll' }}>{items.map((item) => <li>{item}</li>)}</ul>;",
    '}',
  ].join('\n'),
  'packages/ui/src/button.tsx': 'export function Button() {\n  return <button />;\n}\n',
  // Other files, so that a word is as rare as in a real repository.
  ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`packages/${i % 2 ? 'ui' : 'core'}/src/part${i}.ts`, `export const part${i} = ${i}; // part ${i} of the shop\n`])),
};

/** The repository with past `core` commits that changed `files`, each commit one file. */
async function repoWithHistory(files: readonly string[]): Promise<{ repo: TempRepo; index: RepoIndex }> {
  const repo = await TempRepo.create(FILES);
  let n = 0;
  for (const file of files) {
    await repo.write({ [file]: `${FILES[file]}// change ${++n}\n` });
    await repo.git('add', '-A');
    await repo.git(...IDENTITY, 'commit', '-q', '-m', `fix(core): change ${n}`);
  }
  return { repo, index: await loadRepo(repo.root, { cache: false }) };
}

const TITLE = 'fix(core): the menu does not scroll';
const ranked = (index: RepoIndex) => inferCandidates({ title: TITLE, body: '' }, inferenceIndexOf(index), createRepoTree(index.files, index.packages)).map((c) => c.path);

describe('a title scope counts as far as its past commits stayed inside its folders', () => {
  let loose: { repo: TempRepo; index: RepoIndex };
  let faithful: { repo: TempRepo; index: RepoIndex };
  beforeAll(async () => {
    // Past `core` commits: all in packages/ui (loose), or all in packages/core (faithful).
    loose = await repoWithHistory(['packages/ui/src/button.tsx', 'packages/ui/src/button.tsx', 'packages/ui/src/button.tsx', 'packages/ui/src/button.tsx']);
    faithful = await repoWithHistory(['packages/core/src/store.ts', 'packages/core/src/store.ts', 'packages/core/src/store.ts', 'packages/core/src/store.ts']);
  });
  afterAll(async () => {
    await loose.repo.dispose();
    await faithful.repo.dispose();
  });

  it('ranks the file the words point at first when the scope is used loosely', () => {
    const found = ranked(loose.index);
    expect(found.indexOf('packages/ui/src/menu.tsx')).toBeLessThan(found.indexOf('packages/core/src/session.ts'));
  });

  it('keeps the scope’s folder first when its past commits stayed in it', () => {
    const found = ranked(faithful.index);
    expect(found.indexOf('packages/core/src/session.ts')).toBeGreaterThanOrEqual(0);
    expect(found.indexOf('packages/core/src/session.ts')).toBeLessThan(found.indexOf('packages/ui/src/menu.tsx'));
  });
});

describe('the files past commits of a title scope changed count by how many such commits there were', () => {
  let repo: TempRepo;
  let index: RepoIndex;
  beforeAll(async () => {
    repo = await TempRepo.create({
      ...FILES,
      'tools/release.js': 'module.exports = function release() {};\n',
      'packages/ui/src/settings-tabs.tsx': '// Settings tabs: a tab the role may not see redirects to the first it may.\nexport function SettingsTabs() {\n  return null; // redirect when denied\n}\n',
    });
    // One past `client` commit, about something else entirely.
    await repo.write({ 'tools/release.js': 'module.exports = function release() { return 1; };\n' });
    await repo.git('add', '-A');
    await repo.git(...IDENTITY, 'commit', '-q', '-m', 'fix(client): bump the release script');
    index = await loadRepo(repo.root, { cache: false });
  });
  afterAll(async () => {
    await repo.dispose();
  });

  it('lets the words of the title outrank a file one past commit of the same scope happened to change', () => {
    const found = inferCandidates({ title: 'fix(client): redirect denied settings tabs', body: '' }, inferenceIndexOf(index), createRepoTree(index.files, index.packages)).map((c) => c.path);
    expect(found[0]).toBe('packages/ui/src/settings-tabs.tsx');
    expect(found.indexOf('tools/release.js')).toBeGreaterThan(0);
  });
});

describe('the files of a trusted scope’s folder are ranked however many files elsewhere hold the title’s words better', () => {
  let repo: TempRepo;
  let index: RepoIndex;
  const PAGE = 'packages/forms/src/settings/SettingsPage.tsx';
  beforeAll(async () => {
    repo = await TempRepo.create({
      'package.json': JSON.stringify({ name: 'shop', private: true, workspaces: ['packages/*'] }),
      'packages/forms/package.json': JSON.stringify({ name: '@shop/forms' }),
      'packages/forms/src/store.ts': 'export const store = new Map<string, string>();\n',
      // The page the fix goes to says "refresh" once, among much else.
      [PAGE]: [
        'export function SettingsPage({ rows }: { rows: string[] }) {',
        '  // The settings of each form: its fields, its validation, its layout and who may submit it; a refresh reloads them.',
        '  return <table>{rows.map((row) => <tr><td>{row}</td><td>field layout validation submit</td></tr>)}</table>;',
        '}',
      ].join('\n'),
      'packages/admin/package.json': JSON.stringify({ name: '@shop/admin' }),
      // Sixty files elsewhere that are all about refresh buttons.
      ...Object.fromEntries(
        Array.from({ length: 60 }, (_, i) => [`packages/admin/src/refresh/RefreshButton${i}.tsx`, `// A refresh button (${i}): the button refreshes the block.\nexport function RefreshButton${i}() {\n  return <button>refresh</button>; // refresh button\n}\n`]),
      ),
    });
    // The team's `forms` commits stay in packages/forms (the scope is trusted), and never touched the page.
    for (let n = 1; n <= 4; n++) {
      await repo.write({ 'packages/forms/src/store.ts': `export const store = new Map<string, string>(); // ${n}\n` });
      await repo.git('add', '-A');
      await repo.git(...IDENTITY, 'commit', '-q', '-m', `fix(forms): keep the store ${n}`);
    }
    index = await loadRepo(repo.root, { cache: false });
  });
  afterAll(async () => {
    await repo.dispose();
  });

  it('finds the page of the scope’s folder that holds the words, below sixty better matches elsewhere', () => {
    const candidates = inferCandidates({ title: 'fix(forms): add refresh button', body: '' }, inferenceIndexOf(index), createRepoTree(index.files, index.packages));
    const page = candidates.find((c) => c.path === PAGE);
    expect(candidates.map((c) => c.path)).toContain(PAGE);
    expect(page!.evidence.map((e) => e.kind)).toEqual(expect.arrayContaining(['scope', 'words']));
  });
});
