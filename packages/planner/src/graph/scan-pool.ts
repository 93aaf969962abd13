/**
 * Adapter: scans many files' imports, on worker threads when there are enough files for the
 * start-up cost (each worker loads TypeScript, about half a second) to pay off.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ImportKind, RepoPath } from '../types.js';
import { scanImports } from './scan-imports.js';

export interface ScanJob {
  file: RepoPath;
  /** The content when it was already read (to hash it); else the worker reads the file. */
  text?: string;
}

export interface ScanResult {
  file: RepoPath;
  /** Null when the file could not be read. */
  imports: [string, ImportKind][] | null;
}

export interface ScanOptions {
  /** Threads besides the main one (default: one less than the cores, at most 3). */
  workers?: number;
  /** Fewest files that justify workers (default 1500). */
  parallelThreshold?: number;
}

const WORKER = fileURLToPath(new URL('./scan-worker.js', import.meta.url));

function scanHere(root: string, jobs: readonly ScanJob[]): ScanResult[] {
  return jobs.map((job) => {
    let text = job.text;
    if (text === undefined) {
      try {
        text = readFileSync(path.join(root, job.file), 'utf8');
      } catch {
        return { file: job.file, imports: null };
      }
    }
    return { file: job.file, imports: scanImports(text).map(({ specifier, kind }) => [specifier, kind] as [string, ImportKind]) };
  });
}

function scanInWorker(root: string, jobs: ScanJob[]): Promise<ScanResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: { root, jobs } });
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
  if (workers === 0 || jobs.length < threshold || !existsSync(WORKER)) return { results: scanHere(root, jobs), threads: 1 };
  const shares = Array.from({ length: workers + 1 }, () => [] as ScanJob[]);
  jobs.forEach((job, i) => shares[i % shares.length]!.push(job));
  const pending = shares.slice(1).map((share) => scanInWorker(root, share));
  const mine = scanHere(root, shares[0]!);
  const theirs = await Promise.all(pending);
  const byFile = new Map<RepoPath, ScanResult>();
  for (const result of [mine, ...theirs].flat()) byFile.set(result.file, result);
  return { results: jobs.map((job) => byFile.get(job.file)!), threads: shares.length };
}
