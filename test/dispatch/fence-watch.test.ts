/**
 * The live fence's watcher on a real git work tree: every write is reported once checked against
 * the tree's ignore files, in new folders too; git's, waves' and node_modules' files never are.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchTree } from '@waves/dispatch';
import { TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo;
beforeAll(async () => {
  repo = await TempRepo.create({ '.gitignore': 'dist/\n', 'src/a.ts': 'a\n', 'src/old/b.ts': 'b\n', 'src/moved/m1.ts': 'm\n', 'src/moved/sub/m2.ts': 'm\n', 'node_modules/x/index.js': '' });
});
afterAll(async () => {
  await repo.dispose();
});

describe('the watcher of a run\'s work tree', () => {
  it('reports writes, creations in new folders and deletions (a folder moved away: its files, F2); never .git, .waves, node_modules or ignored files', async () => {
    const seen: string[] = [];
    const watcher = watchTree(repo.root, (paths) => {
      seen.push(...paths);
    });
    await watcher.ready;
    const at = (p: string) => path.join(repo.root, p);
    writeFileSync(at('src/a.ts'), 'changed\n');
    mkdirSync(at('src/fresh/deep'), { recursive: true });
    writeFileSync(at('src/fresh/deep/c.ts'), 'c\n');
    rmSync(at('src/old'), { recursive: true });
    // Moved out of the tree: no event comes for its files, which went with it.
    renameSync(at('src/moved'), `${repo.root}-moved-away`);
    writeFileSync(at('node_modules/x/index.js'), 'x');
    mkdirSync(at('dist'), { recursive: true });
    writeFileSync(at('dist/out.js'), 'x');
    mkdirSync(at('.waves'), { recursive: true });
    writeFileSync(at('.waves/leases.jsonl'), '');
    writeFileSync(at('.git/description'), 'x');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await watcher.drain();
    watcher.close();
    const unique = [...new Set(seen)].sort();
    expect(unique).toEqual(['src/a.ts', 'src/fresh/deep/c.ts', 'src/moved/m1.ts', 'src/moved/sub/m2.ts', 'src/old/b.ts']);
    rmSync(`${repo.root}-moved-away`, { recursive: true, force: true });
  });

  it('always reports a .gitignore written, even one that ignores itself, and what it would hide beside it', async () => {
    const seen: string[] = [];
    const watcher = watchTree(repo.root, (paths) => {
      seen.push(...paths);
    });
    await watcher.ready;
    writeFileSync(path.join(repo.root, 'src/.gitignore'), '.gitignore\nevil.ts\nsub/\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    mkdirSync(path.join(repo.root, 'src/sub'), { recursive: true });
    writeFileSync(path.join(repo.root, 'src/evil.ts'), 'x\n');
    writeFileSync(path.join(repo.root, 'src/sub/deep.ts'), 'x\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await watcher.drain();
    watcher.close();
    expect([...new Set(seen)]).toEqual(expect.arrayContaining(['src/.gitignore', 'src/evil.ts', 'src/sub/deep.ts']));
    rmSync(path.join(repo.root, 'src'), { recursive: true, force: true });
    await repo.git('checkout', '--', 'src');
  });

  it('takes nothing as ignored once the run changed .git/info/exclude', async () => {
    const seen: string[] = [];
    const watcher = watchTree(repo.root, (paths) => {
      seen.push(...paths);
    });
    await watcher.ready;
    writeFileSync(path.join(repo.root, '.git/info/exclude'), 'hidden.ts\n', { flag: 'a' });
    writeFileSync(path.join(repo.root, 'hidden.ts'), 'x\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await watcher.drain();
    watcher.close();
    expect(seen).toContain('hidden.ts');
    rmSync(path.join(repo.root, 'hidden.ts'));
  });
});
