import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { confidencePercent, contentWords, createRepoTree, inferCandidates, inferenceIndexOf, likelyText, LIKELY, loadRepo, MENTION, MAX_CONTENT_WORDS, packWords, unpackWords, type Candidate, type RepoIndex } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

/**
 * Two admin pages whose paths and declared names say nothing of what an issue about them says:
 * only their texts do (a button's label, a comment, a column's key).
 */
const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'admin', private: true }),
  'src/pages/VerifiersPage.tsx': [
    "import { Button, Table } from './ui';",
    '// The list of verifiers, with a refresh button above it.',
    'export function VerifiersPage({ load }: { load: () => void }) {',
    '  return <div><Button onClick={load}>Refresh</Button><Table rows={[]} /></div>;',
    '}',
  ].join('\n'),
  'src/pages/WorkflowPane.tsx': [
    "import { Table } from './ui';",
    "const columns = [{ key: 'title', width: 240 }, { key: 'enabled' }];",
    'export function WorkflowPane() {',
    '  return <Table columns={columns} rows={[]} />;',
    '}',
  ].join('\n'),
  'src/pages/ui.tsx': 'export const Button = (p: object) => p;\nexport const Table = (p: object) => p;\n',
};

let repo: TempRepo;
let index: RepoIndex;

beforeAll(async () => {
  repo = await TempRepo.create(FILES);
  index = await loadRepo(repo.root, { cache: false });
});
afterAll(async () => {
  await repo.dispose();
});

const infer = (title: string, body = '') => inferCandidates({ title, body }, inferenceIndexOf(index), createRepoTree(index.files, index.packages));

describe('scope inference reads the words of each file’s text', () => {
  it('finds the page a title speaks of by its label, comment and keys, with that as its evidence', () => {
    const refresh = infer('Refresh button does nothing');
    expect(refresh[0]!.path).toBe('src/pages/VerifiersPage.tsx');
    expect(refresh[0]!.evidence).toContainEqual({ kind: 'words', text: 'refresh button', where: { field: 'title' }, matched: 'the text of src/pages/VerifiersPage.tsx' });
    const column = infer('Title column is too narrow');
    expect(column[0]!.path).toBe('src/pages/WorkflowPane.tsx');
    expect(column[0]!.evidence.find((e) => e.matched === 'the text of src/pages/WorkflowPane.tsx')?.text).toBe('title column');
  });

  it('reads the words of the body that a file’s text holds, too', () => {
    const found = infer('Admin page broken', 'Clicking refresh above the list shows nothing.');
    expect(found[0]!.path).toBe('src/pages/VerifiersPage.tsx');
    expect(found[0]!.evidence.find((e) => e.matched === 'the text of src/pages/VerifiersPage.tsx')?.text).toContain('refresh');
  });

  it('counts a file’s words as an issue’s are matched — humps split, plurals off, keywords and stop words out — most frequent first', () => {
    expect(contentWords('export const refreshButtons = () => refreshList(); // refresh the lists\nreturn null;')).toEqual([
      ['refresh', 3],
      ['list', 2],
      ['button', 1],
    ]);
    const many = Array.from({ length: MAX_CONTENT_WORDS + 50 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`).join(' ');
    expect(contentWords(many)).toHaveLength(MAX_CONTENT_WORDS);
  });

  it('packs words with their counts and reads them back; a tampered count reads as 1', () => {
    const word = fc.stringMatching(/^[a-z0-9#\u00e9]{1,12}$/);
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(word, fc.integer({ min: 1, max: 20_000 })), { selector: ([w]) => w, maxLength: 40 }), (words) => {
        expect(unpackWords(packWords(words))).toEqual(words);
      }),
    );
    expect(unpackWords('a*NaN b*-3 c*1e400 d*2.5 e*7 f*1000000000')).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 1],
      ['d', 1],
      ['e', 7],
      ['f', 20_000],
    ]);
    // No more words than a scan keeps, whatever the string holds.
    expect(unpackWords(Array.from({ length: 5000 }, (_, i) => `w${i}`).join(' '))).toHaveLength(MAX_CONTENT_WORDS);
  });

  it('calls the best candidate "likely" in a triage reason only when it is at least somewhat sure, "perhaps" below', () => {
    const candidate = (path: string, confidence: number): Candidate => ({ path, confidence, evidence: [{ kind: 'words', text: 'shop', where: { field: 'body' }, matched: `the text of ${path}` }] });
    expect(likelyText([candidate('a.ts', 0.17), candidate('b.ts', 0.1)])).toBe('perhaps a.ts (17%: words shop), or b.ts');
    expect(likelyText([candidate('a.ts', LIKELY), candidate('b.ts', 0.1)])).toMatch(/^likely a\.ts \(50%/);
    expect(likelyText([candidate('a.ts', 0.49)])).toMatch(/^perhaps a\.ts \(49%/);
    expect(likelyText([])).toBe('');
    // Too unsure to name at all (the entry's candidates still list it).
    expect(likelyText([candidate('a.ts', MENTION - 0.01)])).toBe('');
  });

  it('reads words apart at Unicode spaces and signs as at ASCII ones: a title typed with no-break or ideographic spaces has words', () => {
    expect(infer('Refresh\u00a0button\u3000does\u2009nothing')[0]!.path).toBe('src/pages/VerifiersPage.tsx');
    expect(contentWords('«Enregistrer\u00a0:» refresh\u2014button \ufeffbom').map(([w]) => w).sort()).toEqual(['bom', 'button', 'enregistrer', 'refresh']);
  });

  it('shows a confidence as a percent rounded down, so that one short of a threshold never reads as it', () => {
    expect([0.696, 0.7, 0.29, 0.999, 0].map(confidencePercent)).toEqual([69, 70, 29, 99, 0]);
  });

  it('stays unsure of a vague title, however well one file holds its one or two words', () => {
    const specific = infer('Refresh button does nothing above the verifiers table')[0]!;
    expect(specific.path).toBe('src/pages/VerifiersPage.tsx');
    for (const title of ['It does not work', 'Refresh', 'Button broken', 'Table']) {
      const best = infer(title)[0];
      expect(best === undefined || best.confidence < LIKELY, title).toBe(true);
      // One word of it, matched as well as can be, is less sure than the title that says more.
      expect(best === undefined || best.confidence < specific.confidence, title).toBe(true);
    }
  });
});

describe('the words of a long file are not discounted as much as BM25 usually does', () => {
  // The module that does the work says the words many times among many others; a file
  // of labels says each once, in a few words. The fix goes to the module.
  const filler = Array.from({ length: 240 }, (_, i) => `step${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
  const LONG: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'shop', private: true }),
    'src/billing/ledger.ts': [
      '// Issues a refund and prints its receipt.',
      'export function settle(order: { id: string }) {',
      ...filler.map((word, i) => (i % 40 === 0 ? `  const ${word} = print(order); // the refund, then its receipt` : `  const ${word} = order.id;`)),
      '}',
      'declare function print(order: { id: string }): void;',
    ].join('\n'),
    'src/billing/labels.ts': "export const labels = { refund: 'Refund', receipt: 'Receipt', close: 'Close' };\n",
  };
  let long: TempRepo;
  let longIndex: RepoIndex;
  beforeAll(async () => {
    long = await TempRepo.create(LONG);
    longIndex = await loadRepo(long.root, { cache: false });
  });
  afterAll(async () => {
    await long.dispose();
  });

  it('ranks the module that says the words often above the short file that says them once', () => {
    const found = inferCandidates({ title: 'Refund receipt is wrong', body: '' }, inferenceIndexOf(longIndex), createRepoTree(longIndex.files, longIndex.packages));
    expect(found.map((c) => c.path).slice(0, 2)).toEqual(['src/billing/ledger.ts', 'src/billing/labels.ts']);
  });
});
