/**
 * The live fence's backstop: the run's supervisor watches every write in the run's work tree —
 * the agent's edit tools, its shell commands (`sed -i`, `git checkout`), a program it started —
 * and checks each path outside the fence at once, as a hook would. A granted write is recorded as
 * an extension; a refused one is in the log and the record (and stops the run with
 * `fence.onRefusal: stop`). It is the only fence for an agent without hooks (codex, a custom one).
 *
 * What it skips, and why: `.git/` (git's own files: harvest watches what matters there), any
 * `node_modules/` (installs; never committed), `.waves/` and `.dispatch-runs/` (waves' own), and
 * the paths the tree's ignore files ignore (build output: harvest never sees them either; asked of
 * `git check-ignore` with waves' safe options, in batches) — but never a `.gitignore` itself, which
 * an agent could make ignore itself and what it writes beside it. Folders are not writes: a new one is
 * watched, and the files written in it are checked.
 *
 * NOTE: one `fs.watch` per folder, not Node's `recursive: true`: on Linux (Node 20) that walks and
 * watches every folder, `node_modules` and pnpm's store links included, and cannot skip any. inotify
 * reports a write after it happened: the watcher can record and stop, never prevent; the hooks
 * prevent, for the agents that have them.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { execaGit, readRegularFile, SAFE_GIT_CONFIG } from '@waves/planner';

const SKIPPED_ANYWHERE = new Set(['node_modules', '.git']);
const SKIPPED_AT_TOP = new Set(['.waves', '.dispatch-runs']);

export interface TreeWatcher {
  /** Resolves once every folder present at the start is watched. */
  ready: Promise<void>;
  /** Checks what was seen and not yet checked, and waits for every check under way (before the run is settled). */
  drain(): Promise<void>;
  close(): void;
}

/** Whether a tree-relative path is one the watcher never checks. */
export function isSkipped(relative: string): boolean {
  const segments = relative.split('/');
  if (SKIPPED_AT_TOP.has(segments[0]!)) return true;
  return segments.some((s) => SKIPPED_ANYWHERE.has(s));
}

/**
 * Watches `tree` and calls `onWrites` with batches of tree-relative POSIX paths of files written,
 * created, renamed or deleted (ignored paths left out), at most every `batchMs`.
 */
export function watchTree(
  tree: string,
  onWrites: (paths: string[]) => Promise<void> | void,
  options: {
    batchMs?: number;
    /** A folder that cannot be watched for lack of watches or descriptors (ENOSPC, EMFILE, ENFILE): writes there go unseen. */
    onBlind?: (relative: string, code: string) => void;
  } = {},
): TreeWatcher {
  const blind = (rel: string, error: unknown) => {
    const code = (error as NodeJS.ErrnoException | null)?.code ?? '';
    if (code === 'ENOSPC' || code === 'EMFILE' || code === 'ENFILE') options.onBlind?.(rel, code);
  };
  const watchers = new Map<string, FSWatcher>();
  /** Folders whose ignore rules the run changed (a `.gitignore` written there): nothing under them is taken as ignored. */
  const distrusted = new Set<string>();
  // `.git/info/exclude` as it was when the run started: changed since, no ignore rule is trusted.
  const excludeFile = gitPath(tree, 'info/exclude');
  const excludeAtStart = excludeFile.then(readExclude);
  const excludeChanged = async () => {
    const file = await excludeFile;
    return file !== null && (await readExclude(file)) !== (await excludeAtStart);
  };
  // The files last seen in each watched folder: a folder moved away or deleted at once reports no
  // event for its files, which are then checked as deleted from this list.
  const known = new Map<string, Set<string>>();
  const remember = (rel: string) => {
    const slash = rel.lastIndexOf('/');
    const dir = slash < 0 ? '' : rel.slice(0, slash);
    known.get(dir)?.add(slash < 0 ? rel : rel.slice(slash + 1));
  };
  let closed = false;
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  const inflight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inflight.add(work);
    void work.finally(() => inflight.delete(work));
  };

  const flush = async () => {
    timer = null;
    const batch = [...pending];
    pending = new Set();
    if (batch.length === 0 || closed) return;
    const files: string[] = [];
    for (const rel of batch) {
      const info = await lstat(path.join(tree, rel)).catch(() => null);
      if (info === null && watchers.has(rel)) {
        // A folder removed (or moved away): its files went with it, whether or not their own
        // events came (a move reports none) — each is checked as deleted.
        for (const [dir, watcher] of watchers) {
          if (dir === rel || dir.startsWith(`${rel}/`)) {
            watcher.close();
            watchers.delete(dir);
            for (const name of known.get(dir) ?? []) if (!isSkipped(`${dir}/${name}`)) files.push(`${dir}/${name}`);
            known.delete(dir);
          }
        }
        continue;
      }
      if (info !== null && info.isDirectory()) {
        // A folder made (or moved in): watch it, and check what is already in it.
        await addTree(rel, true);
        continue;
      }
      if (info !== null) remember(rel);
      files.push(rel);
    }
    const unique = [...new Set(files)];
    // A folder whose `.gitignore` the run wrote: its rules are the run's, not the repository's.
    for (const file of unique) if (/(?:^|\/)\.gitignore$/i.test(file)) distrusted.add(file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '');
    const kept = await notIgnored(tree, unique, distrusted, await excludeChanged());
    if (kept.length > 0 && !closed) await onWrites(kept);
  };
  const queue = (rel: string) => {
    if (closed || rel === '' || isSkipped(rel)) return;
    pending.add(rel);
    timer ??= setTimeout(() => track(flush()), options.batchMs ?? 20);
  };

  const addDir = (rel: string) => {
    if (closed || watchers.has(rel)) return;
    try {
      const watcher = watch(path.join(tree, rel), { persistent: false }, (_event, name) => {
        if (name === null) return;
        // The folder's own removal is reported under its own name: not a file in it.
        if (rel !== '' && String(name) === path.basename(rel) && !existsSync(path.join(tree, rel))) return;
        queue(rel === '' ? String(name) : `${rel}/${String(name)}`);
      });
      watcher.on('error', (error) => {
        watcher.close();
        watchers.delete(rel);
        blind(rel, error);
      });
      watchers.set(rel, watcher);
      if (!known.has(rel)) known.set(rel, new Set());
    } catch (error) {
      // Gone already, or no permission: nothing to watch there. Out of watches: the backstop is
      // gone there, which is said (a run that could exhaust them must not go unseen).
      blind(rel, error);
    }
  };
  /** Watches a folder and those below it; `fresh`: it appeared during the run, so its files are writes too. */
  const addTree = async (rel: string, fresh: boolean): Promise<void> => {
    if (rel !== '' && isSkipped(rel)) return;
    const dir = path.join(tree, rel);
    const info = await lstat(dir).catch(() => null);
    // Never through a link: a folder replaced by one is a write, not a place to watch.
    if (info === null || !info.isDirectory()) return;
    addDir(rel);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await addTree(child, fresh);
      else {
        known.get(rel)?.add(entry.name);
        if (fresh) queue(child);
      }
    }
  };
  const ready = addTree('', false);
  return {
    ready,
    async drain() {
      // Events the kernel has queued are read by the loop first: a turn of it, then what is pending.
      await new Promise((resolve) => setTimeout(resolve, options.batchMs ?? 20));
      if (timer) {
        clearTimeout(timer);
        timer = null;
        track(flush());
      }
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/** Where git keeps one of its files for the tree (`info/exclude`), absolute; null when git cannot say. */
async function gitPath(tree: string, name: string): Promise<string | null> {
  const result = await execaGit([...SAFE_GIT_CONFIG, 'rev-parse', '--path-format=absolute', '--git-path', name], { cwd: tree, reject: false, stdin: 'ignore' }).catch(() => null);
  return result && result.exitCode === 0 ? String(result.stdout).trim() : null;
}

/** The content of an exclude file ('' when there is none; a marker when it cannot be read as one). */
async function readExclude(file: string | null): Promise<string> {
  if (file === null) return '';
  const read = await readRegularFile(file, { maxBytes: 1024 * 1024 });
  return read.ok ? read.text : read.kind === 'missing' ? '' : `\0${read.kind}`;
}

/**
 * The paths git's ignore rules do not ignore (all of them when git cannot tell, or when the run
 * changed `.git/info/exclude`); under a folder in `distrusted`, none is taken as ignored.
 */
async function notIgnored(tree: string, paths: string[], distrusted: ReadonlySet<string> = new Set(), trustNone = false): Promise<string[]> {
  if (paths.length === 0 || trustNone) return paths;
  // Without --literal-pathspecs (check-ignore refuses that magic): the paths come from the kernel,
  // on stdin, never as pathspecs. Your core.excludesFile is left out, as harvest leaves it out;
  // `.git/info/exclude` cannot be: an agent that writes it to blind the watcher changed `.git`,
  // which harvest reports.
  const result = await execaGit([...SAFE_GIT_CONFIG, '-c', 'core.excludesFile=/dev/null', 'check-ignore', '-z', '--stdin'], { cwd: tree, reject: false, input: `${paths.join('\0')}\0` }).catch(() => null);
  // 0: some ignored (listed), 1: none ignored; anything else: git could not tell, check them all.
  if (result === null || (result.exitCode !== 0 && result.exitCode !== 1)) return paths;
  const ignored = new Set(String(result.stdout).split('\0').filter(Boolean));
  // A `.gitignore` is always checked, ignored or not: one that ignores itself would blind the
  // watcher to the files beside it — and so are the files under the folder it rules.
  const ruledByRun = (p: string) => [...distrusted].some((dir) => dir === '' || p.startsWith(`${dir}/`));
  return paths.filter((p) => !ignored.has(p) || /(?:^|\/)\.gitignore$/i.test(p) || ruledByRun(p));
}
