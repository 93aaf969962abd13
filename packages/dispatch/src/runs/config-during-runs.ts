/**
 * Whether the repository's own config was changed while runs of an earlier dispatch were running
 * (red team 3, #7): an agent in wave 1 rewrites `waves.config.json` (its `verify`, an agent's
 * command) and `dispatch --wave 2` would seal what it wrote, for wave 2's harvest to run as the
 * person. The rule: the file's content differs from HEAD (compared by content, whatever the index
 * flags say) and its ctime — which no process can set back — falls between the start of a run of
 * this repository and its end (plus a few seconds), or after the start of one that has not ended.
 * A person who edits the config between dispatches never trips it; one who edits it while agents
 * run commits it first (then it equals HEAD).
 */
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { execaGit } from '@waves/planner';
import { GIT_OPTIONS, hashFiles } from '../harvest/git-changes.js';
import { readSeals, viewStatus, type RunRecord } from './run-record.js';
import { sealFileOf } from './record-seal.js';

async function lastWrite(recordFile: string): Promise<number> {
  const seal = await lstat(await sealFileOf(recordFile)).catch(() => null);
  return seal?.mtimeMs ?? Number.POSITIVE_INFINITY;
}

/** What a run's end may lag behind the last write of its processes (the supervisor settles it). */
const END_SLACK_MS = 1_000;

/** A one-line reason to refuse sealing `file` (a config inside the repository at `root`), or null. */
export async function configChangedDuringRuns(root: string, runsDir: string, file: string): Promise<string | null> {
  const rel = path.relative(root, file).split(path.sep).join('/');
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const [now] = await hashFiles(root, [rel]);
  const head = await execaGit([...GIT_OPTIONS, 'rev-parse', '--verify', '--quiet', `HEAD:${rel}`], { cwd: root, reject: false, stdin: 'ignore' });
  const headBlob = head.exitCode === 0 ? head.stdout.trim() : null;
  if ((now?.hash ?? null) === headBlob) return null;
  // The later ctime of the path and (a link) of what it leads to.
  const times = await Promise.all([lstat(file).catch(() => null), stat(file).catch(() => null)]);
  const ctime = Math.max(...times.map((s) => s?.ctimeMs ?? 0));
  const runs: RunRecord[] = [];
  for (const [sealFile, r] of await readSeals(runsDir)) {
    const started = Date.parse(r.startedAt);
    // A run that never settled (killed with its supervisor): its end is its seal's last write.
    const end = r.endedAt !== null ? Date.parse(r.endedAt) : viewStatus(r) === 'stale' ? await lastWrite(sealFile) : Number.POSITIVE_INFINITY;
    if (Number.isFinite(started) && started <= ctime && ctime <= end + END_SLACK_MS) runs.push(r);
  }
  if (runs.length === 0) return null;
  const named = runs.map((r) => `#${r.issue.number}`).slice(0, 5).join(', ') + (runs.length > 5 ? ` and ${runs.length - 5} more` : '');
  return `${rel} differs from HEAD and was changed while run(s) ${named} were running (an agent could have rewritten its verify or agents): check it, then commit it or restore it (git checkout -- ${rel}) and dispatch again`;
}
