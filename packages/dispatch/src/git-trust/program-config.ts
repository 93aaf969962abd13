/**
 * The git config that names a program git can run on its own during the commands waves runs
 * (listing, status, diff, add, commit, worktree add, checkout of a file): which keys those are,
 * how `git config --list -z` reads, and how the config in effect now compares with the one the
 * person trusted. Pure: data in, data out.
 *
 * Watched (the key as git lists it: section and name lower-cased, the subsection as written):
 * - `filter.<driver>.clean|smudge|process`: run on every file whose attributes name the driver,
 *   by `ls-files --modified`, `status`, `diff`, `add` (clean) and `worktree add`, a checkout
 *   (smudge) — even on plumbing, whenever a file is stat-dirty;
 * - `diff.<driver>.textconv|command`, `diff.external`: by porcelain diffs and logs;
 * - `merge.<driver>.driver`: by a merge;
 * - `gpg.program`, `gpg.<format>.program`, `gpg.format`, `gpg.ssh.defaultKeyCommand` and the
 *   enablers `commit.gpgSign`, `tag.gpgSign`: by a commit or a tag;
 * - `trailer.<token>.command|cmd`: by a commit that adds trailers;
 * - `include.path`, `includeIf.<condition>.path`: a file of config read in; the key itself, with
 *   every value it has, whether its condition holds now or not — an include whose condition is
 *   not true yet (`onbranch:` a branch waves will make, `gitdir:` a worktree it will add) would
 *   bring its programs in exactly where no check read them (red team 3, finding 3). A new or
 *   changed include is a change to trust;
 * - `core.attributesFile`: the attributes that choose which driver runs on which file;
 * - `extensions.partialClone`, `remote.<name>.promisor|uploadPack|receivePack`, `core.sshCommand`:
 *   a promisor remote makes git fetch a missing object on its own, running the remote's
 *   upload-pack (red team 3, finding 2). waves also turns every protocol off (SAFE_GIT_CONFIG);
 * - `core.worktree`: no program, but where git takes the work tree to be — set by an agent that
 *   wrote `.git/config`, every listing, status and diff of waves would read another folder.
 *
 * NOTE: not watched, on purpose. `core.hooksPath` and `core.fsmonitor` are overridden on every
 * git command of waves (SAFE_GIT_CONFIG), and hooks are files, not config. Other programs git
 * runs only to reach a remote (`credential.helper`, `protocol.*`…) or a person at a terminal
 * (`core.editor`, `core.pager`, `sequence.editor`) never run from waves, which neither fetches
 * (every protocol is off: `protocol.allow=never`) nor pushes nor opens an editor or a pager; a
 * person changing their editor would only be asked to trust it again. The attribute files
 * (`.gitattributes`, `info/attributes`) are not config: they only choose among the drivers the
 * config defines, and a driver git does not find in the config runs nothing.
 */
import path from 'node:path';

/** One setting of git's config, as `git config --list --show-scope --show-origin -z` gives it. */
export interface GitConfigEntry {
  scope: string;
  /** Where git read it: `file:<path>`, `command line:`, `blob:…`, `standard input:`. */
  origin: string;
  key: string;
  /** null for a key written without `=` (a boolean true). */
  value: string | null;
}

/** The settings that count, with where each was read: one per key, the one in effect (git reads the last). */
export type ProgramConfig = Map<string, { value: string | null; origin: string; scope?: string }>;

/** What the person trusts: every value each watched key may have (one per work tree it was read in). */
export type TrustedConfig = Record<string, (string | null)[]>;

/** A watched key whose value now is not one the person trusted. */
export interface ProgramChange {
  key: string;
  value: string | null;
  origin: string;
  /** The values trusted for it (none: the key is new). */
  trusted: (string | null)[];
}

const WATCHED: readonly RegExp[] = [
  /^filter\..+\.(?:clean|smudge|process)$/,
  /^diff\..+\.(?:textconv|command)$/,
  /^diff\.external$/,
  /^merge\..+\.driver$/,
  /^gpg\.program$/,
  /^gpg\.[^.]+\.program$/,
  /^gpg\.format$/,
  /^gpg\.ssh\.defaultkeycommand$/,
  /^(?:commit|tag)\.gpgsign$/,
  /^trailer\..+\.(?:command|cmd)$/,
  /^include\.path$/,
  /^includeif\..+\.path$/,
  /^core\.attributesfile$/,
  /^extensions\.partialclone$/,
  /^remote\..+\.(?:promisor|uploadpack|receivepack)$/,
  /^core\.sshcommand$/,
  /^core\.worktree$/,
];

/** Keys git reads every value of (an include per value): each value counts, not the last one alone. */
const MULTI_VALUED = /^(?:include\.path|includeif\..+\.path)$/;
/** The key of a setting in a ProgramConfig: a multi-valued key's values are kept apart (`key NUL value`). */
const SEPARATOR = '\0';
/** The key as git names it, for a key of a ProgramConfig. */
export const configKeyOf = (mapKey: string): string => mapKey.split(SEPARATOR)[0]!;

/** Whether git can run a program named by (or switched on by) this key in a command of waves. */
export function namesProgram(key: string): boolean {
  return WATCHED.some((re) => re.test(key));
}

/**
 * Parses `git config --list --show-scope --show-origin -z`: records `scope NUL origin NUL
 * key[LF value] NUL`.
 */
export function parseConfigList(text: string): GitConfigEntry[] {
  const fields = text.split('\0');
  const entries: GitConfigEntry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin, item] = [fields[i]!, fields[i + 1]!, fields[i + 2]!];
    const newline = item.indexOf('\n');
    entries.push({ scope, origin, key: newline < 0 ? item : item.slice(0, newline), value: newline < 0 ? null : item.slice(newline + 1) });
  }
  return entries;
}

/**
 * The watched settings in effect: the last value of each key, as git reads them. The command
 * line's settings are left out: they are the person's (GIT_CONFIG_PARAMETERS) or waves' own,
 * never a file an agent can write.
 */
export function programConfig(entries: readonly GitConfigEntry[]): ProgramConfig {
  const config: ProgramConfig = new Map();
  for (const entry of entries) {
    if (entry.scope === 'command' || !namesProgram(entry.key)) continue;
    const mapKey = MULTI_VALUED.test(entry.key) ? `${entry.key}${SEPARATOR}${entry.value ?? ''}` : entry.key;
    config.delete(mapKey);
    config.set(mapKey, { value: entry.value, origin: entry.origin, scope: entry.scope });
  }
  return config;
}

/** What the person trusts, taken from the config in effect in each work tree of the repository. */
export function trustedConfigOf(configs: readonly ProgramConfig[]): TrustedConfig {
  const trusted: TrustedConfig = {};
  for (const config of configs) {
    for (const [mapKey, { value }] of config) {
      const values = (trusted[configKeyOf(mapKey)] ??= []);
      if (!values.includes(value)) values.push(value);
    }
  }
  return Object.fromEntries(Object.entries(trusted).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The watched keys set now to a value the person did not trust: added or changed. A key removed
 * (or set back to a trusted value) runs no new program and is not a change.
 */
export function programChanges(trusted: TrustedConfig, now: ProgramConfig): ProgramChange[] {
  const changes: ProgramChange[] = [];
  for (const [mapKey, { value, origin }] of now) {
    const key = configKeyOf(mapKey);
    const values = Object.hasOwn(trusted, key) ? trusted[key]! : [];
    if (!values.includes(value)) changes.push({ key, value, origin, trusted: values });
  }
  return changes;
}

const SIGNING_DEFAULTS = { 'gpg.format': 'openpgp', 'gpg.program': 'gpg', 'gpg.x509.program': 'gpgsm', 'gpg.ssh.program': 'ssh-keygen' };

/** Whether git signs commits with this config (`commit.gpgSign` in effect). */
export function signsCommits(config: ProgramConfig): boolean {
  const value = config.get('commit.gpgsign')?.value;
  return value === null || (value !== undefined && /^(?:true|yes|on|1)$/i.test(value));
}

/**
 * The options that let a commit of waves sign as the trusted config does: signing back on
 * (SAFE_GIT_CONFIG turns it off) and each signing key pinned to its trusted value, so that a
 * config changed after the check cannot choose another program.
 */
export function signingOptions(config: ProgramConfig): string[] {
  if (!signsCommits(config)) return [];
  // git's own defaults where the config has none: a key planted after the check is then overridden too.
  const pinned = new Map<string, string>(Object.entries(SIGNING_DEFAULTS));
  for (const [key, { value }] of config) {
    if (key.startsWith('gpg.') && value !== null) pinned.set(key, value);
  }
  return ['-c', 'commit.gpgSign=true', ...[...pinned].flatMap(([key, value]) => ['-c', `${key}=${value}`])];
}

/** Keys whose value is a path to a file (resolved from the config file that holds it), not a command line. */
const PATH_VALUED = /^(?:include\.path|includeif\..+\.path|core\.attributesfile)$/;
/** Keys whose value is a switch or a name, not a program. */
const NOT_A_PROGRAM = /^(?:commit\.gpgsign|tag\.gpgsign|gpg\.format|extensions\.partialclone|remote\..+\.promisor)$/;

const insideOf = (dir: string, file: string) => {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/**
 * The path a trusted setting names that an agent can rewrite: a relative one (git runs a
 * program from the work tree it runs in: `sh tools/clean.sh` is the agent's `tools/clean.sh` in
 * its worktree) or one inside the repository `root`. Null when it names none. `configFile`: the
 * file that holds the setting, from which git resolves a relative include.
 */
export function pathInRepository(key: string, value: string | null, root: string, configFile: string | null): string | null {
  if (value === null || NOT_A_PROGRAM.test(key)) return null;
  if (PATH_VALUED.test(key)) {
    if (value.startsWith('~')) return null;
    const resolved = path.isAbsolute(value) ? value : configFile !== null ? path.resolve(path.dirname(configFile), value) : null;
    // Relative to a file not known here (a setting read back from the baseline): not judged.
    if (resolved === null) return null;
    return insideOf(root, resolved) ? resolved : null;
  }
  for (const raw of value.split(/\s+/)) {
    const word = raw.replace(/^['"]|['"]$/g, '');
    if (word === '' || word.startsWith('-') || word.includes('%') || word.includes('=')) continue;
    if (!word.includes('/')) continue;
    if (!path.isAbsolute(word) || insideOf(root, word)) return word;
  }
  return null;
}
