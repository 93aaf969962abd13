/**
 * `waves lease acquire|release|renew|list`: exclusive, expiring claims on lanes and paths,
 * shared by every orchestrator on the machine through the journal (.waves/leases.jsonl).
 * Exit codes scripts can rely on: 0 acquired or done, 3 refused, 2 bad input, 1 failure.
 */
import path from 'node:path';
import Table from 'cli-table3';
import { checkGitTrust, defaultHolder, type LeaseBackend } from '@waves/dispatch';
import { checkLane, createRepoTree, holderProblem, listRepoFiles, readWorkspace, resolveLaneName, WHOLE_REPOSITORY, type Lease } from '@waves/planner';
import { durationOf, parseCommandArgs, renderFlags, stringFlag, type FlagSpecs } from '../args.js';
import { configuredLeases } from '../config/lease-store.js';
import { loadConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { safeText } from '../render/safe-text.js';
import { rootFlag } from '../root-flag.js';

export const EXIT_REFUSED = 3;

export const LEASE_FLAGS: FlagSpecs = {
  holder: { type: 'string', value: 'H', description: 'Who holds the lease', default: 'leases.holder of the config, else user@host' },
  ttl: { type: 'string', value: 'DURATION', description: 'How long the lease lives (30m, 1h, 2d; at most 24.8 days)', default: 'leases.ttl of the config, else 1h' },
  root: { type: 'string', value: 'DIR', description: 'Repository whose journal to use', default: 'the current directory' },
  config: { type: 'string', value: 'FILE', description: 'Config file', default: 'waves.config.json at the root, if any' },
  force: { type: 'boolean', description: "release or renew: act on another holder's lease" },
  json: { type: 'boolean', description: 'Print the answer as JSON' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const LEASE_HELP = `Usage: waves lease acquire LANE [--holder H] [--ttl 1h]
       waves lease release ID [--holder H | --force]
       waves lease renew ID [--ttl 1h] [--holder H | --force]
       waves lease list
       waves lease gc

Exclusive, expiring claims on a lane (a workspace package or directory name) or a path, kept in
the journal .waves/leases.jsonl (leases.journal in the config) and shared by every orchestrator
on the machine — or, with leases.backend "git", in a ref of the git remote (leases.remote, default
origin — a URL only in a config of your own, --config FILE; leases.ref, default refs/waves/leases,
always under refs/waves/), shared by every machine that reaches it: each change one
compare-and-swap push, expiry judged with leases.clockSkew (default 1m) of margin.
gc drops expired entries (and those dated in the future) and files that are not leases from the
git table, and says which (--json: dropped, foreign); it compacts the journal to its live leases
(--json: compacted), as any change does once the journal passes 8 MB.
release and renew act only on a lease of the holder (--holder, else leases.holder, else
user@host): another holder's, a run's included, needs --force (exit 2 otherwise).
acquire is refused while another holder's live lease covers the same path, one inside it or one
around it. The lane . is the whole repository: waves dispatch takes it for a
serial issue (one that must run alone), and a serial issue waits while any other lease is held.
waves plan puts issues whose scope a lease covers in "held". Paths are compared in one spelling
(./, //, backslashes and a trailing / do not matter); "", /, .., absolute paths and ~ are refused.

Options:
${renderFlags(LEASE_FLAGS)}

Examples:
  waves lease acquire packages/cli --holder agent-7 --ttl 30m
  waves lease acquire cli --json            # {"status":"acquired","id":"l-…",…} or {"status":"refused","holder":…,"until":…}
  waves lease renew l-mabc123-9f3e --ttl 1h --holder agent-7
  waves lease release l-mabc123-9f3e --holder agent-7
  waves lease list

Exit codes: 0 acquired or done, 3 refused (or the lease already ended, or the git table stayed
busy), 2 bad input, 1 failure (the git remote did not answer).
`;

async function journalOf(values: ReturnType<typeof parseCommandArgs>['values'], io: CliIo) {
  const { root } = await rootFlag(values, io);
  const loaded = await loadConfig(root, stringFlag(values, 'config'), io.cwd);
  const { config } = loaded;
  const holderFlag = stringFlag(values, 'holder');
  const holderFlagProblem = holderFlag === undefined ? null : holderProblem(holderFlag);
  if (holderFlagProblem !== null) throw new UsageError(`lease: --holder ${safeText(JSON.stringify(holderFlag), 80)} ${holderFlagProblem}`);
  const holder = holderFlag ?? config.leases?.holder ?? defaultHolder();
  const ttlFlag = stringFlag(values, 'ttl');
  const ttlMs =
    ttlFlag !== undefined ? durationOf(ttlFlag, { flag: 'ttl' }) : config.leases?.ttl !== undefined ? durationOf(config.leases.ttl, { configKey: 'leases.ttl' }) : 3_600_000;
  // Before any git command: git would run a program an agent planted in its config.
  if (config.leases?.backend === 'git') await checkGitTrust(root);
  const { journal, backend } = await configuredLeases(loaded, root, () => io.now());
  return { root, journal, backend, holder, ttlMs };
}

/** A lane name (`cli`) becomes the directory it names; a path stays as written, in its canonical spelling. */
async function laneToPath(root: string, lane: string): Promise<string> {
  const checked = checkLane(lane);
  if (!checked.ok) throw new UsageError(`lease: ${JSON.stringify(lane)} is not a lane or a path inside the repository: ${checked.problem}`);
  const clean = checked.lane;
  if (clean === WHOLE_REPOSITORY) return clean; // the whole repository, as a serial issue takes it
  // Before any git command: git would run a program an agent planted in its config.
  await checkGitTrust(root);
  const { files } = await listRepoFiles(root);
  const { members } = await readWorkspace(root, files);
  const tree = createRepoTree(files, members);
  if (tree.isFile(clean) || tree.isDir(clean)) return clean;
  return resolveLaneName(clean, tree) ?? clean;
}

/** A size in bytes for people: 812 B, 4.2 KB, 63.9 MB. */
function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Reports torn or corrupt journal lines once, on stderr (the git table's are said by list and gc). */
async function reportCorrupt(backend: LeaseBackend, io: CliIo): Promise<void> {
  if (backend.kind !== 'journal') return;
  for (const warning of (await backend.list()).warnings) io.stderr(`waves: ${safeText(warning)}\n`);
}

export async function runLease(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('lease', LEASE_FLAGS, argv, true);
  if (values.help || positionals.length === 0) {
    (values.help ? io.stdout : io.stderr)(LEASE_HELP);
    return values.help ? 0 : 2;
  }
  const [action, ...rest] = positionals;
  const { root, journal, backend, holder, ttlMs } = await journalOf(values, io);
  const json = (value: unknown) => io.stdout(`${JSON.stringify(value)}\n`);
  const one = (what: string) => {
    if (rest.length !== 1) throw new UsageError(`lease ${action}: expected one ${what}, got ${rest.length}`);
    return rest[0]!;
  };

  if (action === 'acquire') {
    const lane = await laneToPath(root, one('LANE'));
    await reportCorrupt(backend, io);
    const [result] = await backend.acquire([lane], { holder, ttlMs });
    if (!result) throw new Error('lease acquire: the backend answered nothing');
    if (result.status === 'acquired') {
      if (values.json) json({ status: 'acquired', id: result.id, lane: result.lane, holder: result.holder, until: result.until, ...(result.epoch !== undefined ? { epoch: result.epoch } : {}) });
      else io.stdout(`acquired ${result.id} on ${safeText(result.lane)} for ${safeText(holder)} until ${result.until}\n`);
      return 0;
    }
    if (values.json) json({ status: 'refused', lane: result.lane, holder: result.holder, until: result.until, id: result.id, heldLane: result.heldLane });
    else io.stdout(`refused: ${safeText(result.heldLane)} is held by ${safeText(result.holder)} until ${result.until} (lease ${result.id})\n`);
    return EXIT_REFUSED;
  }
  if (action === 'release' || action === 'renew') {
    const id = one('lease ID');
    const { leases, warnings } = await backend.list();
    if (backend.kind === 'journal') for (const warning of warnings) io.stderr(`waves: ${safeText(warning)}\n`);
    // Ids are public (lease list): another holder's lease, a run's included, is freed or kept only on purpose.
    const lease = leases.find((l) => l.id === id);
    if (lease && lease.holder !== holder && !values.force) {
      throw new UsageError(`lease ${action}: ${id} (${safeText(lease.lane)}) is held by ${safeText(lease.holder)}, not ${safeText(holder)}; give its holder with --holder, or --force to ${action} another holder's lease`);
    }
    const [result] = action === 'release' ? await backend.release([id]) : await backend.renew([id], ttlMs);
    if (!result) throw new Error(`lease ${action}: the backend answered nothing`);
    if (result.status === 'unknown') throw new UsageError(`lease ${action}: no lease ${JSON.stringify(id)} in ${path.relative(io.cwd, journal) || journal}`);
    if (result.status === 'not-active') {
      if (values.json) json({ status: 'ended', id });
      else io.stdout(`lease ${id} had already ended (released or expired)${action === 'renew' ? ': acquire the lane again' : ''}\n`);
      return action === 'release' ? 0 : EXIT_REFUSED;
    }
    if (values.json) json({ status: action === 'release' ? 'released' : 'renewed', id, lane: result.lease.lane, until: result.lease.until });
    else io.stdout(action === 'release' ? `released ${id} (${safeText(result.lease.lane)})\n` : `renewed ${id} (${safeText(result.lease.lane)}) until ${result.lease.until}\n`);
    return 0;
  }
  if (action === 'list') {
    if (rest.length > 0) throw new UsageError('lease list: takes no argument');
    const { leases, warnings } = await backend.list();
    for (const warning of warnings) io.stderr(`waves: ${safeText(warning)}\n`);
    if (values.json) {
      json(leases);
      return 0;
    }
    if (leases.length === 0) {
      io.stdout('No active lease.\n');
      return 0;
    }
    const table = new Table({ head: ['Lease', 'Lane or path', 'Holder', 'Until'], style: { head: [], border: [] } });
    for (const lease of leases) table.push([lease.id, safeText(lease.lane), safeText(lease.holder), lease.until]);
    io.stdout(`${table.toString()}\n`);
    return 0;
  }
  if (action === 'gc') {
    if (rest.length > 0) throw new UsageError('lease gc: takes no argument');
    const { dropped, foreign, compacted } = await backend.gc();
    if (values.json) json({ dropped, foreign, ...(compacted ? { compacted } : {}) });
    else {
      const said: string[] = [];
      const shown = path.relative(io.cwd, journal) || journal;
      if (compacted && compacted.after < compacted.before) said.push(`compacted ${shown} from ${sizeOf(compacted.before)} to ${sizeOf(compacted.after)}: ${compacted.kept} live lease(s) kept`);
      // Nothing written: it held its live leases and little else.
      else if (compacted) said.push(`nothing to compact in ${shown} (${sizeOf(compacted.before)}, ${compacted.kept} live lease(s))`);
      const stale = (l: Lease) => (Date.parse(l.since) > io.now().getTime() ? `, dated ${l.since}` : '');
      if (dropped.length > 0) said.push(`dropped ${dropped.length} expired lease(s) (or dated in the future): ${dropped.map((l) => `${l.id} (${safeText(l.lane)}${stale(l)})`).join(', ')}`);
      if (foreign.length > 0) said.push(`dropped ${foreign.length} file(s) that are not leases: ${foreign.slice(0, 10).map((f) => safeText(f)).join(', ')}${foreign.length > 10 ? `, and ${foreign.length - 10} more` : ''}`);
      io.stdout(said.length === 0 ? 'No expired lease to drop.\n' : `${said.join('\n')}\n`);
    }
    return 0;
  }
  throw new UsageError(`lease: unknown action ${JSON.stringify(action)} (acquire, release, renew, list or gc)`);
}
