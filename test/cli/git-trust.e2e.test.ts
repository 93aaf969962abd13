/**
 * A program an agent names in git's config — a filter selected by `info/attributes`, a signing
 * program, a filter in a worktree's own config — never runs from a command of waves: every
 * command that runs git compares the config that names programs with the one the person trusts
 * and stops (exit 2, one line naming the setting and its file) until it is removed or trusted
 * with `waves trust` (red team 2, finding 1). And waves' own commits never start `git gc --auto`,
 * whose repack later harvests took for tampering (finding 13).
 */
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { byIssue, hostileSetup, type Hostile } from '../helpers/hostile-setup.js';
import { waves } from '../helpers/example-repo.js';

let t: Hostile | null = null;
afterEach(async () => {
  await t?.dispose();
  t = null;
});

const ran = (marker: string) => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

/** A program that notes each run in `marker` and passes its input through (a filter that changes nothing). */
function markerProgram(scratch: string, name: string): { program: string; marker: string } {
  const marker = path.join(scratch, `${name}-ran`);
  const program = path.join(scratch, `${name}.sh`);
  writeFileSync(program, `#!/bin/sh\necho "$PWD" >> ${marker}\ncat\n`);
  chmodSync(program, 0o755);
  return { program, marker };
}

/**
 * The scripted agent: #102 runs `plant` in its worktree once the wave's last agent (#105) has
 * started (its worktree made before the plant), every issue edits a file of its fence.
 */
const agentScript = (plant: string) => `
if [ "$1" = 102 ]; then
  while ! ls ../../../.dispatch-runs/resolve-105-*.log >/dev/null 2>&1; do sleep 0.05; done
${plant}
fi
case "$1" in
  101) echo "// 101" >> packages/api/src/routes/checkout.ts ;;
  102) echo "// 102" >> packages/web/src/components/CartView.tsx ;;
  105) echo "// 105" >> packages/core/src/cart.ts ;;
esac
`;

/** Makes every TypeScript file of a work tree stat-dirty: git re-reads (and filters) each one. */
const touchAll = (dir: string) => `find ${dir} -name '*.ts' -not -path '*/node_modules/*' -exec touch -d '2001-01-01' {} +`;

describe('git programs planted in the config never run from waves', () => {
  it('stops plan, harvest, harvest --commit and the next dispatch while a filter an agent planted is in the config, until it is removed', async () => {
    t = await hostileSetup({ script: '' });
    const { program, marker } = markerProgram(t.scratch, 'filter');
    writeFileSync(
      path.join(t.scratch, 'agent.sh'),
      agentScript(`
  common="$(git rev-parse --git-common-dir)"
  mkdir -p "$common/info"
  echo '*.ts filter=evil' >> "$common/info/attributes"
  git config --file "$common/config" filter.evil.clean ${program}
  git config --file "$common/config" filter.evil.smudge ${program}
  ${touchAll('.')}
`),
    );
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    // What the agent's own git ran (in its sandbox) does not count: from here on, nothing may run.
    rmSync(marker, { force: true });
    const { execa } = await import('execa');
    await execa('sh', ['-c', touchAll(t.root)]);

    const refusal = /^waves: git config names a program you have not trusted: filter\.evil\.(clean|smudge)=".*filter\.sh" in \.git\/config .*waves trust$/;
    const plan = await t.waves('plan', '--from-issues', 'backlog.json');
    expect(plan.exitCode).toBe(2);
    expect(plan.stderr.trim()).toMatch(refusal);
    for (const args of [[], ['--commit'], ['--commit', '--revert-out-of-fence']]) {
      const harvest = await t.harvest(...args);
      expect(harvest.exitCode, args.join(' ')).toBe(2);
      expect(harvest.stderr.trim()).toMatch(refusal);
    }
    const dryRun = await t.dispatch('--dry-run', '--wave', '2');
    expect(dryRun.exitCode).toBe(2);
    const next = await t.dispatch('--worktree', '--wave', '2');
    expect(next.exitCode).toBe(2);
    expect(next.stderr.trim()).toMatch(refusal);
    expect(existsSync(t.worktree(103))).toBe(false);
    expect((await t.waves('graph')).exitCode).toBe(2);
    expect(ran(marker)).toBe('');

    // waves trust shows it, and records nothing without --yes.
    const shown = await t.waves('trust');
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toMatch(/filter\.evil\.clean = ".*filter\.sh" {2}\(new; in \.git\/config\)/);
    expect(shown.stdout).toMatch(/Nothing recorded/);
    expect((await t.waves('plan', '--from-issues', 'backlog.json')).exitCode).toBe(2);

    // The person removes what they did not set: harvest goes on, and says which run changed .git.
    await t.git(t.root, 'config', '--remove-section', 'filter.evil');
    const { exitCode, report, stderr } = await t.harvest('--commit');
    expect(exitCode, stderr).toBe(4);
    // The attributes are the common ones, every worktree's: each run of the wave saw them change.
    for (const n of [101, 102, 105]) expect(byIssue(report, n).witness!.reasons.join(' ')).toMatch(/\.git changed during the run: info\/attributes added/);
    expect(ran(marker)).toBe('');
  }, 180_000);

  it('checks again before each worktree of the wave: one made after an agent planted a filter is skipped, saying why', async () => {
    t = await hostileSetup({ script: '' });
    const { program, marker } = markerProgram(t.scratch, 'smudge');
    writeFileSync(
      path.join(t.scratch, 'agent.sh'),
      `if [ "$1" = 102 ]; then
  common="$(git rev-parse --git-common-dir)"
  mkdir -p "$common/info"
  echo '*.ts filter=evil' >> "$common/info/attributes"
  git config --file "$common/config" filter.evil.smudge ${program}
fi
echo "// $1" >> README.md
`,
    );
    // One agent at a time: #105's worktree is made after #102 planted the filter.
    const result = await t.dispatch('--worktree', '--concurrency', '1');
    const output = `${result.stdout}\n${result.stderr}`;
    expect(output).toMatch(/#105.*git config names a program you have not trusted: filter\.evil\.smudge=/);
    expect(existsSync(t.worktree(105))).toBe(false);
    expect(ran(marker)).toBe('');
  }, 120_000);

  it('never runs a signing program an agent configured: harvest --commit stops before any commit', async () => {
    t = await hostileSetup({ script: '' });
    const { program, marker } = markerProgram(t.scratch, 'gpg');
    writeFileSync(
      path.join(t.scratch, 'agent.sh'),
      agentScript(`
  common="$(git rev-parse --git-common-dir)"
  git config --file "$common/config" gpg.program ${program}
  git config --file "$common/config" commit.gpgsign true
`),
    );
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const before = await t.git(t.root, 'rev-parse', 'waves/issue-101');
    const harvest = await t.harvest('--commit');
    expect(harvest.exitCode).toBe(2);
    expect(harvest.stderr.trim()).toMatch(/^waves: git config names a program you have not trusted: (gpg\.program|commit\.gpgsign)=.* in \.git\/config \(and 1 more\)/);
    expect(await t.git(t.root, 'rev-parse', 'waves/issue-101')).toBe(before);
    // The next wave is not dispatched either: its config would be sealed as the run's start.
    expect((await t.dispatch('--worktree', '--wave', '2')).exitCode).toBe(2);
    expect(ran(marker)).toBe('');
  }, 120_000);

  it("stops when an agent sets a filter in its worktree's own config", async () => {
    t = await hostileSetup({ script: '' });
    const { program, marker } = markerProgram(t.scratch, 'wtfilter');
    writeFileSync(
      path.join(t.scratch, 'agent.sh'),
      agentScript(`
  git config extensions.worktreeConfig true
  git config --worktree filter.evil.clean ${program}
  echo '*.ts filter=evil' >> "$(git rev-parse --git-common-dir)/info/attributes"
  ${touchAll('.')}
`),
    );
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    rmSync(marker, { force: true });
    const plan = await t.waves('plan', '--from-issues', 'backlog.json');
    expect(plan.exitCode).toBe(2);
    expect(plan.stderr.trim()).toMatch(/filter\.evil\.clean=".*wtfilter\.sh" in \.git\/worktrees\/issue-102\/config\.worktree/);
    expect((await t.harvest('--commit')).exitCode).toBe(2);
    expect((await t.dispatch('--worktree', '--wave', '2')).exitCode).toBe(2);
    expect(ran(marker)).toBe('');
  }, 120_000);

  it('lets waves trust --yes record the config in effect, after which the commands go on', async () => {
    t = await hostileSetup({ script: '' });
    writeFileSync(path.join(t.scratch, 'agent.sh'), agentScript('  git config --file "$(git rev-parse --git-common-dir)/config" diff.pretty.textconv cat'));
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    expect((await t.waves('plan', '--from-issues', 'backlog.json')).exitCode).toBe(2);
    const trusted = await t.waves('trust', '--yes');
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.stdout).toMatch(/diff\.pretty\.textconv = "cat"/);
    expect(trusted.stdout).toMatch(/Recorded as trusted/);
    // The baseline lives in the state directory, readable by the person alone.
    const dir = path.join(t.scratch, 'state', 'git-trust');
    const [file] = readdirSync(dir);
    expect(statSync(path.join(dir, file!)).mode & 0o777).toBe(0o600);
    expect((await t.waves('plan', '--from-issues', 'backlog.json')).exitCode).toBe(0);
    expect((await t.waves('trust')).stdout).toMatch(/as trusted; nothing to record/);
    // An agent cannot trust for the person.
    const { waves } = await import('../helpers/example-repo.js');
    const refused = await waves(['trust', '--yes'], t.root, { ...t.env, WAVES_RUN: 'resolve-102-x' });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.trim()).toMatch(/^waves: trust: refused inside an agent's run/);
  }, 120_000);

  it('takes no baseline silently once agents have run: the first command after that asks for waves trust', async () => {
    t = await hostileSetup({ script: '' });
    writeFileSync(path.join(t.scratch, 'agent.sh'), agentScript(''));
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    rmSync(path.join(t.scratch, 'state', 'git-trust'), { recursive: true, force: true });
    // Records deleted from the repository leave their seals: still no silent baseline.
    const copies = readdirSync(path.join(t.root, '.dispatch-runs')).filter((n) => n.endsWith('.json'));
    const saved = copies.map((n) => [n, readFileSync(path.join(t!.root, '.dispatch-runs', n), 'utf8')] as const);
    for (const n of copies) rmSync(path.join(t.root, '.dispatch-runs', n));
    const plan = await t.waves('plan', '--from-issues', 'backlog.json');
    expect(plan.exitCode).toBe(2);
    expect(plan.stderr.trim()).toMatch(/^waves: no trusted git config is recorded for this repository/);
    for (const [n, text] of saved) writeFileSync(path.join(t.root, '.dispatch-runs', n), text);
    const harvest = await t.harvest();
    expect(harvest.exitCode).toBe(2);
    expect(harvest.stderr.trim()).toMatch(/^waves: no trusted git config is recorded for this repository, and agents of waves have run in it: .*waves trust/);
    expect((await t.waves('trust', '--yes')).exitCode).toBe(0);
    expect((await t.harvest()).exitCode).toBe(0);
  }, 120_000);

  it("asks the person to look at a filter and signing program the repository's own config names when waves first meets it, then works with them", async () => {
    t = await hostileSetup({ script: '' });
    const filter = markerProgram(t.scratch, 'lfsish');
    const gpgMarker = path.join(t.scratch, 'gpg-ran');
    const gpg = path.join(t.scratch, 'gpg.sh');
    // A signing program that signs: reads the payload, says SIG_CREATED on the status fd, prints a signature.
    writeFileSync(gpg, `#!/bin/sh\necho signed >> ${gpgMarker}\ncat > /dev/null\nprintf '\\n[GNUPG:] SIG_CREATED D 1 8 00 1 X\\n' >&2\nprintf -- '-----BEGIN PGP SIGNATURE-----\\n\\nx\\n-----END PGP SIGNATURE-----\\n'\n`);
    chmodSync(gpg, 0o755);
    await t.git(t.root, 'config', 'filter.lfsish.clean', filter.program);
    await t.git(t.root, 'config', 'filter.lfsish.smudge', filter.program);
    await t.git(t.root, 'config', 'gpg.program', gpg);
    await t.git(t.root, 'config', 'commit.gpgsign', 'true');
    writeFileSync(path.join(t.root, '.git', 'info', 'attributes'), '*.ts filter=lfsish\n');
    writeFileSync(path.join(t.scratch, 'agent.sh'), agentScript(''));
    // The repository's own config names programs: waves, meeting it for the first time, asks the person to look.
    const first = await t.waves('plan', '--from-issues', 'backlog.json');
    expect(first.exitCode).toBe(2);
    expect(first.stderr.trim()).toMatch(/^waves: this repository's own git config names a program: .* \(and \d+ more\); waves runs no git command in a repository it meets for the first time until you have looked: waves trust shows the settings and records them$/);
    expect(ran(filter.marker)).toBe('');
    expect((await t.waves('trust', '--yes')).exitCode).toBe(0);
    expect((await t.waves('plan', '--from-issues', 'backlog.json')).exitCode).toBe(0);
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const { exitCode, report, stderr } = await t.harvest('--commit');
    expect(exitCode, stderr).toBe(0);
    // The person's filter ran (git-lfs would), and the commits are signed by the person's program.
    expect(ran(filter.marker)).not.toBe('');
    expect(ran(gpgMarker)).not.toBe('');
    const sha = byIssue(report, 101).witness!.commit!.sha;
    expect(await t.git(t.root, 'cat-file', '-p', sha)).toMatch(/^gpgsig -----BEGIN PGP SIGNATURE-----/m);
  }, 120_000);
});

describe('a file of the repository the global config includes (red team F8)', () => {
  it("is the repository's own config at first contact, whatever scope git gives it: waves asks the person to look, and its filter never runs first", async () => {
    t = await hostileSetup({ script: '' });
    const filter = markerProgram(t.scratch, 'fmt');
    // A team's shared, tracked .gitconfig, which the person's global config includes.
    writeFileSync(path.join(t.root, '.gitconfig'), `[filter "fmt"]\n\tclean = ${filter.program}\n\tsmudge = ${filter.program}\n`);
    writeFileSync(path.join(t.root, '.git', 'info', 'attributes'), '*.ts filter=fmt\n');
    const global = path.join(t.scratch, 'global.gitconfig');
    for (const include of [`[include]\n\tpath = ${t.root}/.gitconfig\n`, `[includeIf "gitdir:${t.root}/"]\n\tpath = ${t.root}/.gitconfig\n`]) {
      writeFileSync(global, include);
      rmSync(path.join(t.env.WAVES_STATE_DIR, 'git-trust'), { recursive: true, force: true });
      const first = await waves(['plan', '--from-issues', 'backlog.json'], t.root, { ...t.env, GIT_CONFIG_GLOBAL: global });
      expect(first.exitCode, include).toBe(2);
      expect(first.stderr.trim()).toMatch(/^waves: this repository's own git config names a program: filter\.fmt\.(clean|smudge)=.* in \.gitconfig \(and 1 more\); waves runs no git command in a repository it meets for the first time until you have looked/);
      expect(ran(filter.marker)).toBe('');
    }
    expect((await waves(['trust', '--yes'], t.root, { ...t.env, GIT_CONFIG_GLOBAL: global })).exitCode).toBe(0);
    expect((await waves(['plan', '--from-issues', 'backlog.json'], t.root, { ...t.env, GIT_CONFIG_GLOBAL: global })).exitCode).toBe(0);
  }, 120_000);
});

describe("waves' own commits start no git gc", () => {
  it('harvest --commit on a repository that gc --auto would repack at once reports no .git change', async () => {
    t = await hostileSetup({ script: '' });
    // Two packs and a limit of one: every commit's gc --auto would repack (and write info/refs).
    const { execa } = await import('execa');
    await execa('git', ['-C', t.root, 'repack', '-q']);
    writeFileSync(path.join(t.root, 'extra.txt'), 'x\n');
    await t.git(t.root, 'add', 'extra.txt');
    await t.git(t.root, '-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'extra');
    await execa('git', ['-C', t.root, 'repack', '-q']);
    await t.git(t.root, 'config', 'gc.auto', '1');
    await t.git(t.root, 'config', 'gc.autoPackLimit', '1');
    const packs = () => readdirSync(path.join(t!.root, '.git', 'objects', 'pack')).filter((n) => n.endsWith('.pack')).length;
    expect(packs()).toBe(2);
    writeFileSync(path.join(t.scratch, 'agent.sh'), agentScript(''));
    expect((await t.dispatch('--worktree')).exitCode).toBe(0);
    const { exitCode, report, stderr } = await t.harvest('--commit');
    expect(exitCode, `${stderr} ${JSON.stringify(report?.runs.map((r) => r.witness?.reasons))}`).toBe(0);
    for (const n of [101, 102, 105]) expect(byIssue(report, n).witness!.commit, `#${n}`).not.toBeNull();
    expect(packs()).toBe(2);
  }, 120_000);
});
