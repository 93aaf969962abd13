/**
 * `waves trust`: shows the git config that names programs (filters, diff and merge drivers,
 * signing) which differs from what the person trusted, and with --yes records the config in
 * effect as trusted. Every other command of waves that runs git refuses while such a setting is
 * added or changed (see git-trust/ in dispatch): this is the way out once a person has looked.
 */
import { GitTrustError, originOf, pathInRepository, recordGitTrust, reviewGitTrust, type TrustReview } from '@waves/dispatch';
import path from 'node:path';
import { parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { safeText } from '../render/safe-text.js';
import { rootFlag } from '../root-flag.js';

export const TRUST_FLAGS: FlagSpecs = {
  root: { type: 'string', value: 'DIR', description: 'Repository whose git config to trust', default: 'the current directory' },
  yes: { type: 'boolean', description: 'Record the git config in effect as trusted (without it: only show what differs)' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const TRUST_HELP = `Usage: waves trust [--root DIR] [--yes]

Git runs programs its config names: a filter (filter.<driver>.clean, smudge, process) on every
file whose attributes name the driver — from git status, diff, add and checkout alike —, a diff
or merge driver, a signing program (gpg.program with commit.gpgSign). An agent, or anything
that can write the repository's shared .git, a worktree's config or a file the config includes,
can set one, and git would run it as you, outside the agent's sandbox, from waves' own git
commands. So waves keeps the settings of that kind you trust (in its state directory, outside
the repository: $WAVES_STATE_DIR, else $XDG_STATE_HOME/waves, else ~/.local/state/waves) and,
before it runs git, compares the config in effect in every work tree of the repository with
them: one added or changed stops plan, explain, graph, dispatch, harvest, backtest and lease
paths with exit 2, naming the setting and the file it is in. Nothing of git runs meanwhile.
The first time waves meets a repository, before any agent of waves ran there, it records what
is in effect silently (git-lfs or git-crypt filters of yours keep working).

waves trust lists what differs (every such setting when none is recorded yet): key, value and
the file it is in. If you did not set it, remove it (git config --file FILE --unset KEY) and run
waves again: harvest then says which run changed .git. If you did, waves trust --yes records
the config in effect as trusted. Refused inside an agent's run (WAVES_RUN set).

Trust covers the setting, not the file it names: a program named by a relative path (sh
tools/clean.sh) or a path inside the repository is the work tree's file, which an agent can
rewrite; waves trust warns about each such setting. Keep such programs outside the repository.

Options:
${renderFlags(TRUST_FLAGS)}

Exit codes: 0 shown (and recorded with --yes), 2 bad flag or inside an agent's run.
`;

const shown = (value: string | null) => (value === null ? '(no value)' : safeText(JSON.stringify(value), 200));

function renderReview(review: TrustReview, root: string): string {
  const lines = review.changes.map((c) => {
    const was = c.trusted.length === 0 ? 'new' : `was ${c.trusted.map(shown).join(' or ')}`;
    return `  ${safeText(c.key, 120)} = ${shown(c.value)}  (${was}; in ${safeText(originOf(c.origin, root), 200)})`;
  });
  return lines.join('\n');
}

/**
 * A warning per setting that names a program (or a file of config) an agent can rewrite: a
 * relative path runs the file of the work tree git runs in, and a path inside the repository is
 * in every agent's reach. Trusting the setting does not trust that file's content.
 */
function inTreeWarnings(review: TrustReview, root: string): string[] {
  const settings: { key: string; value: string | null; file: string | null }[] = review.changes.map((c) => ({
    key: c.key,
    value: c.value,
    file: c.origin.startsWith('file:') ? c.origin.slice('file:'.length) : null,
  }));
  if (settings.length === 0) for (const [key, values] of Object.entries(review.trusted)) for (const value of values) settings.push({ key, value, file: null });
  const warnings: string[] = [];
  for (const { key, value, file } of settings) {
    const named = pathInRepository(key, value, root, file);
    if (named === null) continue;
    const line = `waves trust: warning: ${safeText(key, 120)} = ${shown(value)} names ${safeText(JSON.stringify(named), 200)}, a path ${path.isAbsolute(named) ? 'inside the repository' : 'relative to the work tree git runs in'}: an agent that rewrites that file gets its version run by waves' git (at harvest); put the program outside the repository to keep it yours`;
    if (!warnings.includes(line)) warnings.push(line);
  }
  return warnings;
}

export async function runTrust(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('trust', TRUST_FLAGS, argv);
  if (values.help) {
    io.stdout(TRUST_HELP);
    return 0;
  }
  if (io.env.WAVES_RUN) throw new UsageError(`trust: refused inside an agent's run (WAVES_RUN=${io.env.WAVES_RUN}): only the person trusts git config`);
  const { root } = await rootFlag(values, io);
  let review: TrustReview | null;
  try {
    review = await reviewGitTrust(root);
  } catch (error) {
    if (error instanceof GitTrustError) throw new UsageError(error.message);
    throw error;
  }
  if (review === null) {
    io.stdout(`waves trust: ${safeText(root, 200)} is not in a git work tree: nothing to trust\n`);
    return 0;
  }
  for (const warning of inTreeWarnings(review, root)) io.stderr(`${warning}\n`);
  if (review.changes.length === 0) {
    if (!review.hadBaseline && values.yes) await recordGitTrust(root, review, io.now());
    io.stdout(
      review.hadBaseline || values.yes
        ? 'waves trust: the git config that names programs is as trusted; nothing to record\n'
        : 'waves trust: the git config names no program; run waves trust --yes to record that\n',
    );
    return 0;
  }
  const head = review.hadBaseline
    ? 'git config that names programs, not trusted yet:'
    : 'no trusted git config is recorded for this repository yet; the settings that name programs:';
  io.stdout(`waves trust: ${head}\n${renderReview(review, root)}\n`);
  if (!values.yes) {
    io.stdout('Nothing recorded. If you did not set these, remove them (git config --file FILE --unset KEY); if you did, run waves trust --yes.\n');
    return 0;
  }
  await recordGitTrust(root, review, io.now());
  io.stdout('Recorded as trusted: waves runs git with this config from now on.\n');
  return 0;
}
