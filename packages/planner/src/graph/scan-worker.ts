/**
 * Worker thread: scans the imports of a share of the source files, so that a cold build of a
 * large repository uses every core. Each job is a file to read (through the same guarded reader
 * as the main thread), or a text already read.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scanJobs, type ScanJob } from './scan-pool.js';

const { root, jobs, maxSourceBytes, words } = workerData as { root: string; jobs: ScanJob[]; maxSourceBytes: number | undefined; words: boolean };
parentPort!.postMessage(scanJobs(root, jobs, maxSourceBytes, words));
