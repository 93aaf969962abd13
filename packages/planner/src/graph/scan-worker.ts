/**
 * Worker thread: scans the imports of a share of the source files, so that a cold build of a
 * large repository uses every core. Each job is a file to read (through the same guarded reader
 * as the main thread), or a text already read. The first worker then scans the files the main
 * thread deferred (those needing TypeScript's parser), so that one thread at most loads it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scanJobs, type ScanJob, type WorkerReply } from './scan-pool.js';

const { root, jobs, maxSourceBytes, words } = workerData as { root: string; jobs: ScanJob[]; maxSourceBytes: number | undefined; words: boolean };
parentPort!.postMessage({ kind: 'share', results: scanJobs(root, jobs, maxSourceBytes, words) } satisfies WorkerReply);
// Then the files the main thread deferred to this one (texts it read: the parser's share).
parentPort!.once('message', (more: ScanJob[]) => {
  parentPort!.postMessage({ kind: 'deferred', results: scanJobs(root, more, maxSourceBytes, words) } satisfies WorkerReply);
});
