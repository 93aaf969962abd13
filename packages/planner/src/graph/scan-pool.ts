/**
 * Adapter: scans many files' imports, on worker threads when there are enough files for the
 * start-up cost to pay off. TypeScript's parser, the safety net of the lexer (scan-imports.ts), is
 * loaded by one thread at most: the main thread defers the few files that need it to the first
 * worker, which parses them after its own share — loading TypeScript costs a thread about 0.4 s
 * and 90 MB, and the main thread's time is the build's (it lists, then resolves).
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ImportKind, RepoPath } from '../types.js';
import { repoFileReader } from './read-repo-file.js';
import { decodeSource } from './read-regular-file.js';
import { readImports } from './scan-imports.js';
import { scanSymbols } from './scan-symbols.js';
import { packEntry, type SymbolsEntry } from './symbols-cache.js';

export interface ScanJob {
  file: RepoPath;
  /** The content when it was already read (to hash it); else the worker reads the file. */
  text?: string;
}

export interface ScanResult {
  file: RepoPath;
  /** Null when the file could not be read. */
  imports: [string, ImportKind][] | null;
  /** What it declares and its message literals (with `imports`), packed for the symbols cache: two strings cross threads faster than hundreds. */
  symbols?: SymbolsEntry;
  /** Why waves refused to read it (a link out of the repository, not a regular file, too large). */
  skipped?: string;
}

export interface ScanOptions {
  /** Threads besides the main one (default: one less than the cores, at most 3). */
  workers?: number;
  /** Fewest files that justify workers (default 1500). */
  parallelThreshold?: number;
  /** The largest source file read, in bytes (default 2 MB); larger ones are skipped and reported. */
  maxSourceBytes?: number;
  /**
   * Count each file's words for scope inference too (default true). A third of the scan's cost on
   * a large repository: a build that needs no inference (`waves graph`) leaves them out, and the
   * first plan that needs them counts them then (build-repo-graph.ts, `readSymbols`).
   */
  words?: boolean;
}

const WORKER = fileURLToPath(new URL('./scan-worker.js', import.meta.url));

/**
 * Scans jobs on this thread (a worker calls it for its share). Files are read only through
 * `repoFileReader`. `defer`, when given, receives each file the lexer cannot read alone, with its
 * text, instead of parsing it here (its result is then left out: the caller scans it elsewhere).
 */
export function scanJobs(root: string, jobs: readonly ScanJob[], maxSourceBytes?: number, words = true, defer?: (job: Required<ScanJob>) => void): ScanResult[] {
  const reader = repoFileReader(root, maxSourceBytes);
  const out: ScanResult[] = [];
  for (const job of jobs) {
    let text = job.text;
    if (text === undefined) {
      const read = reader.read(job.file);
      if (!read.ok) {
        out.push(read.reason ? { file: job.file, imports: null, skipped: read.reason } : { file: job.file, imports: null });
        continue;
      }
      text = decodeSource(read.content);
    }
    const reading = readImports(text, job.file, { parse: defer === undefined });
    if (reading.by === 'deferred') {
      defer!({ file: job.file, text });
      continue;
    }
    const symbols = scanSymbols(text, { words });
    out.push({ file: job.file, imports: reading.imports.map(({ specifier, kind }) => [specifier, kind] as [string, ImportKind]), symbols: packEntry(symbols.names, symbols.literals, symbols.words) });
  }
  return out;
}

/** What a worker posts: its share's results, then (when asked) those of the files deferred to it. */
export type WorkerReply = { kind: 'share' | 'deferred'; results: ScanResult[] };

/** A worker scanning its share; `deferred` hands it more jobs (texts) once its share is done; `end` ends it (it waits for them until then). */
function scanInWorker(root: string, jobs: ScanJob[], maxSourceBytes: number | undefined, words: boolean): { share: Promise<ScanResult[]>; deferred: (jobs: ScanJob[]) => Promise<ScanResult[]>; end: () => void } {
  const worker = new Worker(WORKER, { workerData: { root, jobs, maxSourceBytes, words } });
  const waiting = new Map<WorkerReply['kind'], (results: ScanResult[]) => void>();
  const failed = new Promise<never>((_, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`import scanner worker exited with code ${code}`));
    });
  });
  failed.catch(() => undefined);
  worker.on('message', (reply: WorkerReply) => waiting.get(reply.kind)?.(reply.results));
  const reply = (kind: WorkerReply['kind']) => Promise.race([new Promise<ScanResult[]>((resolve) => waiting.set(kind, resolve)), failed]);
  const share = reply('share');
  return {
    share,
    deferred: async (more) => {
      if (more.length === 0) return [];
      const results = reply('deferred');
      worker.postMessage(more);
      return results;
    },
    end: () => void worker.terminate(),
  };
}

/** Scans every job; the order of the results follows the jobs. `threads` says how many threads scanned. */
export async function scanFiles(root: string, jobs: readonly ScanJob[], options: ScanOptions = {}): Promise<{ results: ScanResult[]; threads: number }> {
  const threshold = options.parallelThreshold ?? 1500;
  const workers = Math.max(0, options.workers ?? Math.min(3, availableParallelism() - 1));
  // The worker script exists next to this module only in the built package (not when run from sources).
  const words = options.words !== false;
  if (workers === 0 || jobs.length < threshold || !existsSync(WORKER)) return { results: scanJobs(root, jobs, options.maxSourceBytes, words), threads: 1 };
  const shares = Array.from({ length: workers + 1 }, () => [] as ScanJob[]);
  jobs.forEach((job, i) => shares[i % shares.length]!.push(job));
  const pending = shares.slice(1).map((share) => scanInWorker(root, share, options.maxSourceBytes, words));
  const byFile = new Map<RepoPath, ScanResult>();
  try {
    const deferred: ScanJob[] = [];
    const mine = scanJobs(root, shares[0]!, options.maxSourceBytes, words, (job) => deferred.push(job));
    const theirs = await Promise.all(pending.map((worker) => worker.share));
    // The first worker parses what this thread deferred (it may have loaded TypeScript already).
    const parsed = await pending[0]!.deferred(deferred);
    for (const result of [mine, ...theirs, parsed].flat()) byFile.set(result.file, result);
  } finally {
    for (const worker of pending) worker.end();
  }
  return { results: jobs.map((job) => byFile.get(job.file)!), threads: shares.length };
}
