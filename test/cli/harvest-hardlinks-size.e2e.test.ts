/**
 * `waves harvest` against files harvest must not read (red team 3, findings 5 and 12): a hard
 * link to a secret outside the repository (0600, the agent's to link though maybe not to read),
 * in the fence or out of it with --revert-out-of-fence; and a sparse file of 2 GiB in the fence.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { byIssue, hostileSetup, type Hostile } from '../helpers/hostile-setup.js';

let t: Hostile | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

/** Every file under `dir`, relative to it. */
const walk = (dir: string, rel = ''): string[] =>
  readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(dir, path.join(rel, e.name)) : [path.join(rel, e.name)]));

describe('waves harvest against files it must not read', () => {
  it('needs a person for a hard link in the fence and never commits the content it shares (a secret outside the repository)', async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then ln {scratch}/secret.txt packages/web/src/config.ts; echo "// x" >> packages/web/src/index.ts; fi' });
    writeFileSync(path.join(t.scratch, 'secret.txt'), 'TOPSECRET\n', { mode: 0o600 });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const main = (await t.git(t.root, 'rev-parse', 'main')).trim();
    const { report, stderr } = await t.harvest('--commit', '--run', t.runId(102));
    const w = byIssue(report, 102).witness!;
    expect(w.status, stderr).toBe('needs_person');
    expect(w.reasons.join(' ')).toMatch(/packages\/web\/src\/config\.ts: a hard link — its content is shared with another file, possibly outside the repository/);
    expect(w.commit).toBeNull();
    expect((await t.git(t.root, 'rev-parse', 'waves/issue-102')).trim()).toBe(main);
    // No blob of the secret was written into the repository.
    const blob = (await t.git(t.root, 'hash-object', '--no-filters', path.join(t.scratch, 'secret.txt'))).trim();
    await expect(t.git(t.root, 'cat-file', '-e', blob)).rejects.toThrow();
  }, 120_000);

  it('with --revert-out-of-fence, removes a hard link out of the fence without copying its content into the backup', async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then ln {scratch}/secret.txt packages/api/leak.txt; echo "// x" >> packages/web/src/index.ts; fi' });
    const secret = path.join(t.scratch, 'secret.txt');
    writeFileSync(secret, 'TOPSECRET\n', { mode: 0o600 });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const { report, stderr } = await t.harvest('--revert-out-of-fence', '--run', t.runId(102));
    const w = byIssue(report, 102).witness!;
    expect(w.reverted, stderr).toContain('packages/api/leak.txt');
    expect(existsSync(path.join(t.worktree(102), 'packages/api/leak.txt'))).toBe(false);
    // The secret is untouched, with one name again; the backup records the link, not its content.
    expect(readFileSync(secret, 'utf8')).toBe('TOPSECRET\n');
    expect(statSync(secret).nlink).toBe(1);
    const runs = path.join(t.root, '.dispatch-runs');
    const backup = readdirSync(runs).find((n) => n.startsWith('reverted-102-'))!;
    const files = walk(path.join(runs, backup));
    expect(files).toEqual([path.join('packages', 'api', 'leak.txt.hard-link-not-copied')]);
    for (const f of files) expect(readFileSync(path.join(runs, backup, f), 'utf8')).not.toContain('TOPSECRET');
  }, 120_000);

  it('with --revert-out-of-fence, never copies a 2 GiB sparse file out of the fence into the backup: not reverted, nothing removed', async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then truncate -s 2G packages/api/big.bin; echo "// x" >> packages/web/src/index.ts; fi' });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const result = await t.harvest('--revert-out-of-fence', '--run', t.runId(102));
    const run = byIssue(result.report, 102) as unknown as { why?: string };
    expect(result.exitCode, result.stderr).toBe(1);
    expect(run.why).toMatch(/^the revert stopped: backing up the agent's versions would copy at least 2048 MB, more than the 512 MB a revert keeps: not reverted, nothing removed$/);
    // Still there, as the agent left it; and the backup holds no copy of it.
    expect(statSync(path.join(t.worktree(102), 'packages/api/big.bin')).size).toBe(2 * 1024 ** 3);
    const runs = path.join(t.root, '.dispatch-runs');
    for (const backup of readdirSync(runs).filter((n) => n.startsWith('reverted-102-'))) {
      for (const f of walk(path.join(runs, backup))) expect(statSync(path.join(runs, backup, f)).size).toBeLessThan(1024 * 1024);
    }
  }, 120_000);

  it('measures what it would back up before it copies any of it: past the budget nothing is copied or removed, however often the harvest is asked again', async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then mkdir -p packages/api/gen; for i in 1 2 3; do head -c 200000000 /dev/zero > packages/api/gen/f$i.bin; done; echo "// x" >> packages/web/src/index.ts; fi' });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const runs = path.join(t.root, '.dispatch-runs');
    for (let i = 0; i < 2; i++) {
      const result = await t.harvest('--revert-out-of-fence', '--run', t.runId(102));
      expect(result.exitCode, result.stderr).toBe(1);
      expect((byIssue(result.report, 102) as unknown as { why?: string }).why).toMatch(/^the revert stopped: backing up the agent's versions would copy at least \d+(\.\d+)? MB, more than the 512 MB a revert keeps: not reverted, nothing removed$/);
    }
    expect(readdirSync(path.join(t.worktree(102), 'packages/api/gen')).sort()).toEqual(['f1.bin', 'f2.bin', 'f3.bin']);
    const copied = readdirSync(runs).filter((n) => n.startsWith('reverted-102-')).flatMap((b) => walk(path.join(runs, b)).map((f) => statSync(path.join(runs, b, f)).size));
    expect(copied.reduce((a, b) => a + b, 0)).toBe(0);
  }, 120_000);

  it('needs a person for a 2 GiB sparse file in the fence, and neither hashes nor commits it', async () => {
    t = await hostileSetup({ script: 'if [ "$1" = 102 ]; then truncate -s 2G packages/web/src/big.bin; echo "// x" >> packages/web/src/index.ts; fi' });
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const main = (await t.git(t.root, 'rev-parse', 'main')).trim();
    const { report, stderr } = await t.harvest('--commit', '--run', t.runId(102));
    const w = byIssue(report, 102).witness!;
    expect(w.status, stderr).toBe('needs_person');
    expect(w.reasons.join(' ')).toMatch(/packages\/web\/src\/big\.bin: bigger than 50 MiB/);
    expect(w.commit).toBeNull();
    expect((await t.git(t.root, 'rev-parse', 'waves/issue-102')).trim()).toBe(main);
    // No blob of it was written into the repository.
    // No blob of it was written into the repository (2 GiB of zeros would take some 2 MiB there).
    const objects = await t.git(t.root, 'count-objects', '-v');
    const kib = (key: string) => Number(objects.match(new RegExp(`^${key}: (\\d+)`, 'm'))![1]);
    expect(kib('size') + kib('size-pack')).toBeLessThan(1024);
  }, 120_000);
});
