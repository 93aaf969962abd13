/**
 * What git would read before it runs — the configs and what they include — is read by waves
 * first, by hand: a FIFO there would block git for good.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitInputProblem } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

describe('gitInputProblem', () => {
  it("follows a config's include whose quoted path holds ; and #, past a comment and a long run of blanks (read in one pass)", async () => {
    const repo = await TempRepo.create({ 'README.md': '# x\n' });
    try {
      const dir = path.join(repo.root, 'odd;dir#x');
      mkdirSync(dir);
      execFileSync('mkfifo', [path.join(dir, 'inc')]);
      appendFileSync(path.join(repo.root, '.git/config'), `[x]\n\tpath =${' '.repeat(150_000)}a\n[include]\n\tpath = "../odd;dir#x/inc" ; a comment\n`);
      expect(await gitInputProblem(repo.root)).toMatch(/odd;dir#x\/inc is a FIFO, not a file: git would block reading it \(included by .*\.git\/config\)/);
    } finally {
      await repo.dispose();
    }
  });

  it('takes a .gitignore or .gitattributes that is a link in the tree as harmless (git never follows one), and a FIFO there as blocking', async () => {
    const repo = await TempRepo.create({ 'README.md': '# x\n', 'sub/x.ts': '' });
    try {
      symlinkSync('/dev/null', path.join(repo.root, '.gitignore'));
      symlinkSync('/dev/null', path.join(repo.root, 'sub/.gitattributes'));
      expect(await gitInputProblem(repo.root, ['sub'])).toBeNull();
      expect(await gitInputProblem(repo.root, ['sub'], { deep: true })).toBeNull();
      execFileSync('mkfifo', [path.join(repo.root, 'sub/.gitignore')]);
      expect(await gitInputProblem(repo.root, ['sub'])).toMatch(/sub\/\.gitignore is a FIFO, not a file/);
    } finally {
      await repo.dispose();
    }
  });
});
