/**
 * `waves init`: writes a starting waves.config.json (and its JSON Schema, which the config names
 * in `$schema` so that editors complete and check it). Never overwrites either without --force,
 * and never writes through a symbolic link, even with --force: a cloned repository could have
 * made either file a link to one of the user's own files.
 */
import { constants } from 'node:fs';
import { access, lstat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readRepoText } from '@waves/planner';
import { parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import { CONFIG_FILE, CONFIG_SCHEMA_FILE, ConfigSchema } from '../config/config-schema.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { jsonSchemaOf } from './schema.js';
import { rootFlag } from '../root-flag.js';

export const INIT_FLAGS: FlagSpecs = {
  root: { type: 'string', value: 'DIR', description: 'Where to write the files', default: 'the current directory' },
  force: { type: 'boolean', description: 'Overwrite an existing waves.config.json and waves.config.schema.json (never a symbolic link)' },
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const INIT_HELP = `Usage: waves init [--root DIR] [--force]

Writes a starting ${CONFIG_FILE} at the root, every key optional and set to its default, and
${CONFIG_SCHEMA_FILE} beside it (named by "$schema", so editors complete the keys). When the
root's package.json has a "test" script, "verify" runs it with the package manager its lockfile
names (pnpm, yarn, bun, else npm): agents are told to run it and waves harvest re-runs it.
Either file already there is kept unless --force; a symbolic link is never written through.

Options:
${renderFlags(INIT_FLAGS)}
`;

export const STARTER_CONFIG = {
  $schema: `./${CONFIG_SCHEMA_FILE}`,
  lanes: {},
  serial: [],
  hubs: 'off',
  subdivide: { maxFiles: 8, maxSubsystems: 3, maxSteps: 15 },
  requireAcceptanceCriteria: false,
  priorityLabels: {},
  defaults: { top: 10, waveSize: 4, maxWaves: 2, granularity: 'file', contentionDepth: 1 },
};

/**
 * `<pm> test` when the root's package.json has a test script; the package manager from the lockfile.
 * The manifest is the repository's: read as the graph reads its files (a regular file inside the
 * repository, at most 2 MB, never blocking on a FIFO) — one that is not gives no verify, and a line.
 */
async function starterVerify(root: string, io: CliIo): Promise<string[] | null> {
  let manifest: { scripts?: Record<string, unknown> };
  const read = readRepoText(root, 'package.json');
  if (!read.ok) {
    if (read.reason) io.stderr(`waves: skipped package.json: ${read.reason} (no verify suggested)\n`);
    return null;
  }
  try {
    manifest = JSON.parse(read.text) as typeof manifest;
  } catch {
    return null;
  }
  if (typeof manifest?.scripts?.test !== 'string') return null;
  const has = (file: string) => access(path.join(root, file)).then(() => true, () => false);
  const pm = (await has('pnpm-lock.yaml')) ? 'pnpm' : (await has('yarn.lock')) ? 'yarn' : (await has('bun.lock')) || (await has('bun.lockb')) ? 'bun' : 'npm';
  return [pm, 'test'];
}

export async function runInit(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('init', INIT_FLAGS, argv);
  if (values.help) {
    io.stdout(INIT_HELP);
    return 0;
  }
  const { root, rootArg } = await rootFlag(values, io);
  const configPath = path.join(root, CONFIG_FILE);
  const schemaPath = path.join(root, CONFIG_SCHEMA_FILE);
  for (const [name, file] of [[CONFIG_FILE, configPath], [CONFIG_SCHEMA_FILE, schemaPath]] as const) {
    const info = await lstat(file).catch(() => null);
    if (info?.isSymbolicLink()) throw new UsageError(`${name} at ${rootArg ?? '.'} is a symbolic link; waves init never writes through one (remove it first)`);
    if (info && !values.force) throw new UsageError(`${name} already exists at ${rootArg ?? '.'}; pass --force to overwrite it`);
  }
  const verify = await starterVerify(root, io);
  const starter = verify ? { ...STARTER_CONFIG, verify: [verify], verifyTimeout: '10m' } : STARTER_CONFIG;
  ConfigSchema.parse(starter); // the starter always validates
  // O_NOFOLLOW: a link swapped in since the check is refused by the open, never followed;
  // O_EXCL without --force: a file created since is not overwritten.
  const flag = constants.O_WRONLY | constants.O_CREAT | (values.force ? constants.O_TRUNC : constants.O_EXCL) | (constants.O_NOFOLLOW ?? 0);
  await writeFile(schemaPath, `${JSON.stringify(jsonSchemaOf('config'), null, 2)}\n`, { flag });
  await writeFile(configPath, `${JSON.stringify(starter, null, 2)}\n`, { flag });
  io.stdout(`wrote ${path.relative(io.cwd, configPath) || CONFIG_FILE} and ${CONFIG_SCHEMA_FILE}\n`);
  return 0;
}
