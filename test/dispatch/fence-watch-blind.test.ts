/**
 * The watcher out of inotify watches (F12 of the fifth red team): a folder whose watch cannot be
 * added (ENOSPC, EMFILE) is reported, never silently skipped — an agent can exhaust its user's
 * watches to blind the backstop. `fs.watch` is made to fail as the kernel makes it fail then.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const watch = ((target: string, ...rest: unknown[]) => {
    if (String(target).includes('sneaky')) throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
    return (fs.watch as (...args: unknown[]) => unknown)(target, ...rest);
  }) as typeof fs.watch;
  return { ...fs, watch, default: { ...fs, watch } };
});

const { watchTree } = await import('../../packages/dispatch/src/fence/fence-watch.js');
const { TempRepo } = await import('../helpers/temp-repo.js');

let repo: Awaited<ReturnType<typeof TempRepo.create>>;
beforeAll(async () => {
  repo = await TempRepo.create({ 'src/a.ts': 'a\n' });
});
afterAll(async () => {
  await repo.dispose();
});

describe('the watcher out of watches', () => {
  it('reports a folder it cannot watch (ENOSPC) instead of skipping it', async () => {
    const blind: [string, string][] = [];
    const seen: string[] = [];
    const watcher = watchTree(repo.root, (paths) => void seen.push(...paths), { onBlind: (rel, code) => void blind.push([rel, code]) });
    await watcher.ready;
    mkdirSync(path.join(repo.root, 'src/sneaky'));
    writeFileSync(path.join(repo.root, 'src/sneaky/x.ts'), 'x\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await watcher.drain();
    watcher.close();
    expect(blind).toEqual([['src/sneaky', 'ENOSPC']]);
  });
});
