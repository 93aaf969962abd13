/**
 * Whether the repository's own config was changed while runs of an earlier dispatch were running
 * (red team 3, #7): an agent in wave 1 rewrites `waves.config.json` (its `verify`, an agent's
 * command) and `dispatch --wave 2` would seal what it wrote, for wave 2's harvest to run as the
 * person. The rule: the file's ctime — which no process can set back — falls between the start of
 * a run of this repository and its end (plus a few seconds), or after the start of one that has not
 * ended, and its content differs from HEAD (compared by content, whatever the index flags say) or
 * from what it was at the commit that run started from (an agent commits on the branch as well).
 * A person who edits the config between dispatches never trips it; one who edited it while agents
 * ran touches it once they have ended.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
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

/**
 * A one-line reason to refuse sealing `file` (a config, or the issues file the plan reads, inside
 * the repository at `root`), or null. `stakes`: what an agent could have rewritten there.
 */
export async function configChangedDuringRuns(root: string, runsDir: string, file: string, stakes = 'its verify or agents'): Promise<string | null> {
  // Compared where they really are: a root or a file named through a link (macOS's /tmp, a linked
  // home) is the same place, never taken for a file outside the repository and left unchecked.
  const [realRoot, realFolder] = await Promise.all([realpath(root).catch(() => root), realpath(path.dirname(file)).catch(() => path.dirname(file))]);
  const rel = path.relative(realRoot, path.join(realFolder, path.basename(file))).split(path.sep).join('/');
  if (rel === '') return null;
  const outside = rel === '..' || rel.startsWith('../') || path.isAbsolute(rel);
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
  const named = (list: readonly RunRecord[]) => list.map((r) => `#${r.issue.number}`).slice(0, 5).join(', ') + (list.length > 5 ? ` and ${list.length - 5} more` : '');
  // Outside the repository there is no HEAD to compare with; an agent that is not sandboxed can
  // write there as well: changed while runs ran is enough.
  if (outside) {
    return `${file} was changed while run(s) ${named(runs)} were running (an agent could have rewritten ${stakes}): check it — if the change is yours, touch ${file} once they have ended — and dispatch again`;
  }
  const [now] = await hashFiles(root, [rel]);
  const content = now?.hash ?? null;
  const blobAt = async (commit: string): Promise<string | null> => {
    const result = await execaGit([...GIT_OPTIONS, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${commit}:${rel}`], { cwd: root, reject: false, stdin: 'ignore' });
    return result.exitCode === 0 ? result.stdout.trim() : null;
  };
  if (content !== (await blobAt('HEAD'))) {
    return `${rel} differs from HEAD and was changed while run(s) ${named(runs)} were running (an agent could have rewritten ${stakes}): check it — if the change is yours, touch ${rel} once they have ended; else restore it (git checkout -- ${rel}) — and dispatch again`;
  }
  // Equal to HEAD, but not to what it was when those runs started: committed during them — an
  // agent can commit on the branch as well as write the file.
  const moved: RunRecord[] = [];
  for (const r of runs) {
    const start = r.start?.head ?? null;
    if (start !== null && (await blobAt(start)) !== content) moved.push(r);
  }
  if (moved.length === 0) return null;
  return `${rel} was changed and committed while run(s) ${named(moved)} were running (an agent could have rewritten ${stakes} and committed it): check it — if the change is yours, touch ${rel} now that they have ended; else restore it (git checkout ${moved[0]!.start!.head!.slice(0, 12)} -- ${rel}) — and dispatch again`;
}
