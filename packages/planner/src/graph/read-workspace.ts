/**
 * Adapter: finds the workspace packages of a repository from its own configuration
 * (`pnpm-workspace.yaml`, `package.json` `workspaces`), with no `node_modules` needed.
 */
import { parse as parseYaml } from 'yaml';
import { globMatchCost, globMatcher, globProblem } from '../paths/globs.js';
import { normalisePattern, parentDir } from '../paths/repo-paths.js';
import type { RepoPath, WorkspacePackage } from '../types.js';
import { repoFileReader, type RepoFileReader } from './read-repo-file.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

/** The fields of a package.json that module resolution reads. */
export interface PackageManifest {
  name?: unknown;
  exports?: unknown;
  imports?: unknown;
  main?: unknown;
  module?: unknown;
  types?: unknown;
  typings?: unknown;
  source?: unknown;
  workspaces?: unknown;
  typesVersions?: unknown;
}

export interface WorkspaceMember extends WorkspacePackage {
  manifest: PackageManifest;
}

export interface Workspace {
  /** Named packages, the root one (dir `""`) included when it has a name. */
  members: WorkspaceMember[];
  /**
   * Manifests that could not be read or parsed, by path; or, `readInPart`, configuration read
   * with something in it ignored (the message says what).
   */
  problems: WorkspaceProblem[];
}

export interface WorkspaceProblem {
  path: RepoPath;
  message: string;
  readInPart?: true;
}

/**
 * The longest workspace glob waves reads: real ones are a few dozen characters, and a longer one
 * is ignored before anything else reads it (a glob of 300,000 `/` took 67 s, then picomatch threw
 * past its 65,536).
 */
export const MAX_WORKSPACE_GLOB = 4096;

/**
 * The globs of one workspace list honoured: each is compiled, then matched against every folder
 * with a manifest (150,000 globs took 7 s and 700 MB); real lists hold a few, or one per package.
 */
export const MAX_WORKSPACE_GLOBS = 4096;

/** A manifest's text, read only as a regular file inside the repository (see read-repo-file.ts). */
function readText(reader: RepoFileReader, file: RepoPath): string {
  const read = reader.read(file);
  if (!read.ok) throw new Error(read.reason ?? 'cannot be read');
  return read.content.toString('utf8');
}

function workspaceGlobs(manifest: PackageManifest | null, pnpmYaml: unknown, problems: WorkspaceProblem[]): string[] {
  const globs: string[] = [];
  const take = (list: unknown[], file: RepoPath) => {
    let long = 0;
    let strings = 0;
    for (const g of list) {
      if (typeof g !== 'string') continue;
      if (++strings > MAX_WORKSPACE_GLOBS) continue;
      if (g.length > MAX_WORKSPACE_GLOB) long++;
      else globs.push(normalisePattern(g));
    }
    const n = (count: number) => count.toLocaleString('en-US');
    if (strings > MAX_WORKSPACE_GLOBS) problems.push({ path: file, message: `read in part: its workspaces hold ${n(strings)} globs, past the first ${n(MAX_WORKSPACE_GLOBS)} ignored`, readInPart: true });
    if (long > 0) problems.push({ path: file, message: `read in part: ${long} workspace glob(s) longer than ${n(MAX_WORKSPACE_GLOB)} characters ignored`, readInPart: true });
  };
  if (pnpmYaml && typeof pnpmYaml === 'object' && Array.isArray((pnpmYaml as { packages?: unknown }).packages)) take((pnpmYaml as { packages: unknown[] }).packages, 'pnpm-workspace.yaml');
  const ws = manifest?.workspaces;
  const list = Array.isArray(ws) ? ws : ws && typeof ws === 'object' && Array.isArray((ws as { packages?: unknown }).packages) ? (ws as { packages: unknown[] }).packages : [];
  take(list, 'package.json');
  return globs;
}

/** A manifest's JSON; one nested past `MAX_JSON_DEPTH` is refused before it is parsed (the walks of its `exports` recurse). */
function parseManifest(text: string): PackageManifest {
  if (nestsDeeperThan(text)) throw new Error(`it nests more than ${MAX_JSON_DEPTH} levels deep`);
  return JSON.parse(text) as PackageManifest;
}

/** Reads the workspace of `root` given its file list (only listed manifests are read). */
/** The most matching work (glob characters times folder characters, summed) one read of a workspace does: real ones need a few million, the bound about a second. */
const MAX_MATCH_WORK = 500_000_000;

export async function readWorkspace(root: string, files: readonly RepoPath[]): Promise<Workspace> {
  const problems: Workspace['problems'] = [];
  const fileSet = new Set(files);
  const reader = repoFileReader(root);
  let rootManifest: PackageManifest | null = null;
  if (fileSet.has('package.json')) {
    try {
      rootManifest = parseManifest(readText(reader, 'package.json'));
    } catch (error) {
      problems.push({ path: 'package.json', message: (error as Error).message });
    }
  }
  let pnpmYaml: unknown = null;
  if (fileSet.has('pnpm-workspace.yaml')) {
    try {
      pnpmYaml = parseYaml(readText(reader, 'pnpm-workspace.yaml'));
    } catch (error) {
      problems.push({ path: 'pnpm-workspace.yaml', message: (error as Error).message });
    }
  }
  // A glob past the caps (the repository's text: see globProblem) is skipped: the first named, the others counted (one line a file).
  const refused: { glob: string; problem: string }[] = [];
  const globs = workspaceGlobs(rootManifest, pnpmYaml, problems).filter((g) => {
    const problem = globProblem(g.startsWith('!') ? g.slice(1) : g);
    if (problem !== null) refused.push({ glob: g, problem });
    return problem === null;
  });
  if (refused.length > 0) {
    const { glob, problem } = refused[0]!;
    const more = refused.length > 1 ? ` (and ${refused.length - 1} more glob(s))` : '';
    problems.push({ path: pnpmYaml !== null ? 'pnpm-workspace.yaml' : 'package.json', message: `read in part: its workspace glob ${JSON.stringify(glob.length > 80 ? `${glob.slice(0, 79)}…` : glob)} is not read: ${problem}${more}`, readInPart: true });
  }
  const include = globs.filter((g) => !g.startsWith('!')).map((g) => ({ cost: globMatchCost(g), match: globMatcher(g) }));
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => ({ cost: globMatchCost(g.slice(1)), match: globMatcher(g.slice(1)) }));
  // Each match costs up to the glob's length (its braces expanded) times the folder's (polynomial, never exponential:
  // match-glob.ts); a repository's text decides both and how many of each, so the work of one
  // read is bounded too (200 globs of 1,000 characters against 300 folders 4,000 deep took minutes).
  let budget = MAX_MATCH_WORK;
  const within = (cost: number, dir: string) => (budget -= cost * (dir.length + 1)) >= 0;
  const dirs: string[] = [];
  for (const dir of files.filter((f) => f.endsWith('/package.json') && !f.split('/').includes('node_modules')).map(parentDir)) {
    let included = false;
    for (const m of include) {
      if (!within(m.cost, dir)) break;
      if ((included = m.match(dir))) break;
    }
    let excluded = false;
    for (const m of included ? exclude : []) {
      if (!within(m.cost, dir)) break;
      if ((excluded = m.match(dir))) break;
    }
    if (budget < 0) {
      problems.push({ path: pnpmYaml !== null ? 'pnpm-workspace.yaml' : 'package.json', message: `read in part: matching its ${globs.length} workspace glob(s) against the repository's folders takes more than waves does for one read; the folders past that are not workspace packages`, readInPart: true });
      break;
    }
    if (included && !excluded) dirs.push(dir);
  }

  const members: WorkspaceMember[] = [];
  if (rootManifest && typeof rootManifest.name === 'string' && rootManifest.name !== '') {
    members.push({ name: rootManifest.name, dir: '', manifest: rootManifest });
  }
  const manifests = await Promise.all(
    dirs.map(async (dir) => {
      try {
        return { dir, manifest: parseManifest(readText(reader, `${dir}/package.json`)) };
      } catch (error) {
        problems.push({ path: `${dir}/package.json`, message: (error as Error).message });
        return null;
      }
    }),
  );
  for (const entry of manifests) {
    if (!entry || !entry.manifest || typeof entry.manifest !== 'object') continue;
    const name = entry.manifest.name;
    if (typeof name === 'string' && name !== '') members.push({ name, dir: entry.dir, manifest: entry.manifest });
  }
  members.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  return { members, problems };
}
