/**
 * Adapter: scans many files' imports, on worker threads when there are enough files for the
 * start-up cost (each worker loads TypeScript, about half a second) to pay off.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ImportKind, RepoPath } from '../types.js';
import { repoFileReader } from './read-repo-file.js';
import { decodeSource } from './read-regular-file.js';
import { scanImports } from './scan-imports.js';
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

/** Scans jobs on this thread (a worker calls it for its share). Files are read only through `repoFileReader`. */
export function scanJobs(root: string, jobs: readonly ScanJob[], maxSourceBytes?: number, words = true): ScanResult[] {
  const reader = repoFileReader(root, maxSourceBytes);
  return jobs.map((job) => {
    let text = job.text;
    if (text === undefined) {
      const read = reader.read(job.file);
      if (!read.ok) return read.reason ? { file: job.file, imports: null, skipped: read.reason } : { file: job.file, imports: null };
      text = decodeSource(read.content);
    }
    const symbols = scanSymbols(text, { words });
    return { file: job.file, imports: scanImports(text, job.file).map(({ specifier, kind }) => [specifier, kind] as [string, ImportKind]), symbols: packEntry(symbols.names, symbols.literals, symbols.words) };
  });
}

function scanInWorker(root: string, jobs: ScanJob[], maxSourceBytes: number | undefined, words: boolean): Promise<ScanResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: { root, jobs, maxSourceBytes, words } });
    worker.once('message', (results: ScanResult[]) => {
      resolve(results);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`import scanner worker exited with code ${code}`));
    });
  });
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
  const mine = scanJobs(root, shares[0]!, options.maxSourceBytes, words);
  const theirs = await Promise.all(pending);
  const byFile = new Map<RepoPath, ScanResult>();
  for (const result of [mine, ...theirs].flat()) byFile.set(result.file, result);
  return { results: jobs.map((job) => byFile.get(job.file)!), threads: shares.length };
}
