/**
 * Every git command waves runs — the planner's file listing, dispatch's worktrees, harvest — runs
 * with hooks off and without the repository's fsmonitor program: an agent can write both into
 * the shared git dir, and what git runs then runs as the person, outside the agent's sandbox
 * (red team, round 1: findings 4 and 5).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostileSetup, type Hostile } from '../helpers/hostile-setup.js';

let t: Hostile | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const ran = (marker: string) => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

describe('git runs without what an agent planted in the repository', () => {
  it('runs none of the hooks an agent planted when dispatch creates the next worktrees', async () => {
    t = await hostileSetup({ script: '' });
    const marker = path.join(t.scratch, 'hooks-ran');
    // Every agent plants the hooks that `git worktree add`, a branch and an index change run.
    writeFileSync(
      path.join(t.scratch, 'agent.sh'),
      `set -e
hooks="$(git rev-parse --git-common-dir)/hooks"
mkdir -p "$hooks"
for h in post-checkout reference-transaction post-index-change; do
  printf '#!/bin/sh\\necho "%s $PWD" >> ${marker}\\n' "$h" > "$hooks/$h"
  chmod +x "$hooks/$h"
done
echo "// work for #$1" >> README.md
`,
    );
    // One agent at a time: the worktrees of the later issues of the wave are created after the hooks are planted.
    expect((await t.dispatch('--worktree', '--concurrency', '1')).exitCode).toBe(0);
    expect(ran(marker)).toBe('');
    expect((await t.dispatch('--worktree', '--wave', '2')).exitCode).toBe(0);
    expect(ran(marker)).toBe('');
    await t.harvest('--commit', '--revert-out-of-fence');
    expect(ran(marker)).toBe('');
  }, 120_000);

  it('never runs a core.fsmonitor program an agent configured: not in plan, dispatch or harvest', async () => {
    t = await hostileSetup({ script: '' });
    const marker = path.join(t.scratch, 'fsmonitor-ran');
    const monitor = path.join(t.scratch, 'fsmonitor.sh');
    writeFileSync(monitor, `#!/bin/sh\necho "$PWD" >> ${marker}\n`, { mode: 0o755 });
    writeFileSync(path.join(t.scratch, 'agent.sh'), `set -e\ngit config core.fsmonitor ${monitor}\necho "// work for #$1" >> README.md\n`);
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    // The config is the repository's now: every later command of waves meets it.
    expect((await t.git(t.root, 'config', 'core.fsmonitor')).trim()).toBe(monitor);
    const plan = await t.waves('plan', '--from-issues', 'backlog.json');
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(ran(marker)).toBe('');
    await t.harvest('--commit');
    expect(ran(marker)).toBe('');
    expect((await t.dispatch('--worktree', '--wave', '2')).exitCode).toBe(0);
    expect(ran(marker)).toBe('');
  }, 120_000);
});
