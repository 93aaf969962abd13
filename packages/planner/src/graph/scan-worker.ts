/**
 * Worker thread: scans the imports of a share of the source files, so that a cold build of a
 * large repository uses every core. Each job is a file to read, or a text already read.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { scanImports } from './scan-imports.js';
import type { ScanJob, ScanResult } from './scan-pool.js';

const { root, jobs } = workerData as { root: string; jobs: ScanJob[] };
const results: ScanResult[] = [];
for (const job of jobs) {
  let text = job.text;
  if (text === undefined) {
    try {
      text = readFileSync(path.join(root, job.file), 'utf8');
    } catch {
      results.push({ file: job.file, imports: null });
      continue;
    }
  }
  results.push({ file: job.file, imports: scanImports(text).map(({ specifier, kind }) => [specifier, kind]) });
}
parentPort!.postMessage(results);
