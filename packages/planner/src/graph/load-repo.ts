/**
 * Adapter: everything the planner needs to know about a repository, read from disk and git.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { RepoIndex } from '../types.js';
import { buildRepoGraph } from './build-repo-graph.js';
import { listRepoFiles } from './list-files.js';
import { readWorkspace } from './read-workspace.js';

export interface LoadRepoOptions {
  /** How the root is reported in the plan (default: as given). */
  displayRoot?: string;
  /** Use the graph cache under `.waves/cache/` (default true); `'read-only'` never writes it. */
  cache?: boolean | 'read-only';
  onProgress?: (done: number, total: number) => void;
}

/** Throws `InputError` when `root` is missing or not a directory. */
export async function assertDirectory(root: string): Promise<void> {
  let info;
  try {
    info = await stat(root);
  } catch {
    throw new InputError(`root ${root}: no such directory`);
  }
  if (!info.isDirectory()) throw new InputError(`root ${root}: not a directory`);
}

export async function loadRepo(root: string, options: LoadRepoOptions = {}): Promise<RepoIndex> {
  await assertDirectory(root);
  const absRoot = path.resolve(root);
  const listing = await listRepoFiles(absRoot);
  const workspace = await readWorkspace(absRoot, listing.files);
  const graph = await buildRepoGraph(absRoot, {
    files: listing.files,
    blobIds: listing.blobIds,
    members: workspace.members,
    cache: options.cache ?? true,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  return {
    root: options.displayRoot ?? root,
    head: listing.head,
    files: listing.files,
    packages: workspace.members.map(({ name, dir }) => ({ name, dir })),
    graph,
  };
}
