/**
 * The `.git` snapshot taken when a run starts: hooks, config and info/ by content, links by their
 * target, FIFOs by their kind (never opened), and every change reported by entry.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changesWhatGitRuns, gitStateChanges, readGitEntries, readGitState } from '@waves/dispatch';
import { TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo | null = null;
afterEach(async () => {
  await repo?.dispose();
  repo = null;
});

describe('the .git snapshot', () => {
  it('sees a planted hook, a changed config, an exclude, a link and a FIFO, without following or opening them', async () => {
    repo = await TempRepo.create({ 'a.txt': 'a\n' });
    const before = await readGitState(repo.root);
    expect(before.commonDir).toBe(path.join(repo.root, '.git'));
    expect(before.entries['.git']).toBe('dir');
    expect(before.entries.config).toMatch(/^sha256:/);
    const git = before.commonDir;
    mkdirSync(path.join(git, 'hooks'), { recursive: true });
    writeFileSync(path.join(git, 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync('/dev/zero', path.join(git, 'hooks', 'post-commit'));
    execFileSync('mkfifo', [path.join(git, 'hooks', 'pre-push')]);
    writeFileSync(path.join(git, 'info', 'exclude'), 'hidden/\n');
    await repo.git('config', 'core.fsmonitor', 'true');
    const after = await readGitEntries(repo.root, before.gitDir, before.commonDir);
    expect(after['hooks/post-commit']).toBe('link:/dev/zero');
    expect(after['hooks/pre-push']).toMatch(/^other:/);
    const changes = gitStateChanges(before.entries, after);
    expect(changes).toEqual([
      { entry: 'config', change: 'modified' },
      { entry: 'hooks/post-commit', change: 'added' },
      { entry: 'hooks/pre-commit', change: 'added' },
      { entry: 'hooks/pre-push', change: 'added' },
      { entry: 'info/exclude', change: 'modified' },
    ]);
    expect(changes.filter((c) => changesWhatGitRuns(c.entry)).map((c) => c.entry)).toEqual(['config']);
  });
});
