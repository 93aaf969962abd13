import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HeldDir, heldDirsSupported, TreeRaceError } from '@waves/dispatch';

let scratch: string | null = null;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = null;
});

/** A tree and a folder outside it holding a person's file. */
function setUp() {
  scratch = mkdtempSync(path.join(tmpdir(), 'waves-held-'));
  const tree = path.join(scratch, 'tree');
  const outside = path.join(scratch, 'outside');
  mkdirSync(path.join(tree, 'a', 'b'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'keep.txt'), 'precious\n');
  writeFileSync(path.join(tree, 'a', 'b', 'f.txt'), 'agent\n');
  symlinkSync(outside, path.join(tree, 'a', 'link'));
  return { tree, outside };
}

describe.runIf(heldDirsSupported())('held folders', () => {
  it('never opens a link as a folder, never removes or copies through one', async () => {
    const { tree, outside } = setUp();
    const top = await HeldDir.openTop(tree, tree);
    const a = (await top.openDir('a'))!;
    expect(await a.openDir('link')).toBeNull();
    const backup = await top.makeDir('backup');
    expect(await a.copyTo('link', backup)).toBe(true);
    expect(readlinkSync(path.join(tree, 'backup', 'link'))).toBe(outside);
    await a.remove('link');
    expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('precious\n');
    expect(readdirSync(path.join(tree, 'a'))).toEqual(['b']);
    await Promise.all([a.close(), backup.close(), top.close()]);
  });

  it('keeps acting on the folder it opened when that folder is moved and a link put in its place', async () => {
    const { tree, outside } = setUp();
    const top = await HeldDir.openTop(tree, tree);
    const b = (await (await top.openDir('a'))!.openDir('b'))!;
    renameSync(path.join(tree, 'a', 'b'), path.join(tree, 'a', 'b.real'));
    symlinkSync(outside, path.join(tree, 'a', 'b'));
    writeFileSync(path.join(outside, 'f.txt'), 'the person\'s f\n');
    await b.remove('f.txt');
    expect(readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe('the person\'s f\n');
    expect(readdirSync(path.join(tree, 'a', 'b.real'))).toEqual([]);
    await b.close();
    await top.close();
  });

  it('refuses a top that is not the folder it should be', async () => {
    const { tree, outside } = setUp();
    rmSync(path.join(tree, 'a'), { recursive: true });
    symlinkSync(outside, path.join(tree, 'a'));
    await expect(HeldDir.openTop(path.join(tree, 'a'), path.join(tree, 'a'))).rejects.toThrow();
    await expect(HeldDir.openTop(tree, outside)).rejects.toBeInstanceOf(TreeRaceError);
    expect(lstatSync(path.join(outside, 'keep.txt')).isFile()).toBe(true);
  });
});
