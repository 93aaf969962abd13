/**
 * What every git command of waves starts with, in every package (the planner's listing, dispatch's
 * worktrees, harvest, backtest): the repository's own files — `.git/config`, `.git/hooks`, which
 * an agent in any worktree can write, since they live in the shared git dir — must not make git
 * run a program as the person, outside the agent's sandbox, nor hide what the agent did.
 *
 * - `core.hooksPath=/dev/null`: no hook runs (`/dev/null` holds none): not the person's, not one
 *   an agent planted (post-checkout at `git worktree add`, reference-transaction at a branch,
 *   post-index-change, pre-commit…).
 * - `core.fsmonitor=false`: git never starts an fsmonitor program to ask what changed.
 * - `core.untrackedCache=false`: the list of untracked files is read from the disk, never from a
 *   cache kept in an index an agent can write.
 * - `core.useReplaceRefs=false`: objects are what their ids say; a `refs/replace/` an agent made
 *   cannot change what a commit holds (a diff from the base would show a swapped tree).
 * - `submodule.recurse=false`, `diff.ignoreSubmodules=dirty`: git never enters a nested
 *   repository to run commands there (its own config would run its filters, its fsmonitor): a
 *   gitlink is compared by the commit it records, never by the state of its work tree.
 *   Commands that take `--ignore-submodules` get it as well (plumbing ignores the config).
 * - `commit.gpgSign=false`, `tag.gpgSign=false`, `log.showSignature=false`: no signing program
 *   runs. Harvest's commit signs again only when the person's trusted git config signs, with
 *   the trusted program pinned on its command line (see git-trust/ in dispatch).
 * - `gc.auto=0`, `maintenance.auto=false`: a commit of waves never starts `git gc --auto`, whose
 *   repack and `info/refs` would change the shared git dir under the runs still going (their
 *   harvest would take it for tampering), nor any other maintenance.
 * - `protocol.allow=never`: git reaches no remote, over any transport (file, ssh, ext::…). waves
 *   never fetches; but git fetches on its own the objects a partial clone lacks, from a
 *   "promisor" remote, running its `uploadpack` or `core.sshCommand` (red team 3, finding 2). A
 *   missing object is an error instead (`GIT_NO_LAZY_FETCH=1` in git's environment says the
 *   same, see git-run.ts).
 *
 * NOTE: what is left to the repository on purpose. Filters (`filter.<driver>.clean/smudge`) and
 * diff drivers are configured by the person: git-crypt and git-lfs put their filters in
 * `.git/config`, and turning them off would show every such file as changed. What keeps a
 * planted one from running is the trust check of dispatch's git-trust/: before any git command,
 * every command of waves compares the git config that names programs with the baseline the
 * person trusts, and refuses to go on when one was added or changed. Diffs that could print
 * content run with `--no-ext-diff --no-textconv`. The system config (`/etc/gitconfig`) is the
 * machine owner's, not the repository's: it is kept. The environment is the person's too
 * (GIT_DIR and the like are not touched).
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.fsmonitor=false',
  '-c', 'core.untrackedCache=false',
  '-c', 'core.useReplaceRefs=false',
  '-c', 'submodule.recurse=false',
  '-c', 'diff.ignoreSubmodules=dirty',
  '-c', 'commit.gpgSign=false',
  '-c', 'tag.gpgSign=false',
  '-c', 'log.showSignature=false',
  '-c', 'gc.auto=0',
  '-c', 'maintenance.auto=false',
  '-c', 'protocol.allow=never',
];
