/**
 * One small history for the backtest tests, in memory (for the planner) and as a real git
 * repository (for the CLI): a base with two folders whose files import each other, then commits
 * of every kind the backlog keeps or skips. Its truth and reference waves are worked out by hand
 * in the tests.
 *
 * Imports at the base: src/a.ts → src/b.ts, src/d.ts → src/c.ts, lib/g.ts → lib/f.ts.
 */
import type { ChangedFile, HistoryCommit } from '@waves/planner';
import { TempRepo } from './temp-repo.js';

export const BASE_FILES: Record<string, string> = {
  'package.json': '{ "name": "bt", "private": true }\n',
  'README.md': '# bt\n',
  'src/a.ts': "import { b } from './b';\nexport const a = b + 1;\n",
  'src/b.ts': 'export const b = 1;\n',
  'src/c.ts': 'export const c = 1;\n',
  'src/d.ts': "import { c } from './c';\nexport const d = c;\n",
  'src/e.ts': 'export const e = 1;\n',
  'lib/f.ts': 'export const f = 1;\n',
  'lib/g.ts': "import { f } from './f';\nexport const g = f;\n",
  'test/a.test.ts': "import { a } from '../src/a';\nexport const t = a;\n",
};

export const BASE_IMPORTS: [string, string][] = [
  ['src/a.ts', 'src/b.ts'],
  ['src/d.ts', 'src/c.ts'],
  ['lib/g.ts', 'lib/f.ts'],
  ['test/a.test.ts', 'src/a.ts'],
];

export interface StepSpec {
  subject: string;
  /** Files written (edit or create), with a marker line so that git sees a change. */
  write: string[];
  /** A merge of a side branch that writes these files (its own commit is not on the first-parent line). */
  merge?: boolean;
}

/** The commits after the base, oldest first. #3 appears twice: the second takes a number of its own. */
export const STEPS: StepSpec[] = [
  { subject: 'feat: a (#1)', write: ['src/a.ts'] },
  { subject: 'fix: b (#2)', write: ['src/b.ts'] },
  { subject: 'feat: c (#3)', write: ['src/c.ts'] },
  { subject: 'feat: n and g (#4)', write: ['src/n.ts', 'lib/g.ts'] },
  { subject: 'chore: e and the manifest (#5)', write: ['src/e.ts', 'package.json'] },
  { subject: 'fix: a again (#6)', write: ['src/a.ts'] },
  { subject: 'Merge branch side (#7)', write: ['src/c.ts'], merge: true },
  { subject: 'docs: readme (#8)', write: ['README.md'] },
  { subject: 'test: a (#9)', write: ['test/a.test.ts'] },
  { subject: 'feat: f (#3)', write: ['lib/f.ts'] },
  { subject: 'feat: d (#11)', write: ['src/d.ts'] },
  { subject: 'chore: manifest only (#12)', write: ['package.json'] },
];

/** The same history as `HistoryCommit`s for the planner, with made-up commit ids. */
export function historyCommits(): HistoryCommit[] {
  const existing = new Set(Object.keys(BASE_FILES));
  return STEPS.map((step, i) => {
    const files: ChangedFile[] = step.write.map((path) => ({ path, change: existing.has(path) ? 'edit' : 'create' }));
    for (const path of step.write) existing.add(path);
    const sha = (i + 1).toString(16).padStart(2, '0').repeat(20);
    return { sha, parents: step.merge ? ['f'.repeat(40), 'e'.repeat(40)] : ['f'.repeat(40)], subject: step.subject, files };
  });
}

const IDENTITY = ['-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid'];

/** The history as a real repository: the base commit, then one commit (or merge) per step. Returns it with the base's id. */
export async function historyRepo(): Promise<{ repo: TempRepo; base: string }> {
  const repo = await TempRepo.create(BASE_FILES);
  const base = (await repo.git('rev-parse', 'HEAD')).stdout.trim();
  let n = 0;
  for (const step of STEPS) {
    n++;
    // A manifest stays JSON (an invalid one is reported as skipped); code gets a marker line.
    const changed = (file: string) => (file.endsWith('.json') ? `${JSON.stringify({ ...(JSON.parse(BASE_FILES[file] ?? '{}') as object), step: n })}\n` : `${BASE_FILES[file] ?? 'export const n = 1;\n'}// step ${n}\n`);
    const files = Object.fromEntries(step.write.map((file) => [file, changed(file)]));
    if (step.merge) {
      await repo.git('checkout', '-q', '-b', `side${n}`);
      await repo.write(files);
      await repo.git('add', '-A');
      await repo.git(...IDENTITY, 'commit', '-q', '-m', `side ${n}`);
      await repo.git('checkout', '-q', 'main');
      await repo.git(...IDENTITY, 'merge', '-q', '--no-ff', '-m', step.subject, `side${n}`);
    } else {
      await repo.write(files);
      await repo.git('add', '-A');
      await repo.git(...IDENTITY, 'commit', '-q', '-m', step.subject);
    }
  }
  return { repo, base };
}
