// A lease client for bench/git-leases.ts, in a process of its own (a cold cache, as a CLI call has):
//   node lease-client.mjs URL STORE once PATH          → {"ms": …} one acquisition (released after, not timed)
//   node lease-client.mjs URL STORE loop PATH ROUNDS    → {"acquired", "refused", "busy", "ms"} acquire+release in a loop
import { gitLeaseBackend, LeaseBusyError } from '../../packages/dispatch/dist/index.js';

const [url, store, mode, lane, rounds] = process.argv.slice(2);
const backend = gitLeaseBackend({ url, remoteName: 'bench', ref: 'refs/waves/leases', skewMs: 0, now: () => new Date(), storeDir: store });
const holder = `bench-${process.pid}`;
if (mode === 'once') {
  const started = performance.now();
  const [result] = await backend.acquire([lane], { holder, ttlMs: 3_600_000 });
  const ms = performance.now() - started;
  if (result.status === 'acquired') await backend.release([result.id]);
  process.stdout.write(`${JSON.stringify({ ms, status: result.status })}\n`);
} else {
  const tally = { acquired: 0, refused: 0, busy: 0, ms: 0 };
  const started = performance.now();
  for (let i = 0; i < Number(rounds); i++) {
    try {
      const [result] = await backend.acquire([lane], { holder, ttlMs: 3_600_000 });
      if (result.status !== 'acquired') {
        tally.refused += 1;
        continue;
      }
      tally.acquired += 1;
      for (;;) {
        try {
          await backend.release([result.id]);
          break;
        } catch (error) {
          if (!(error instanceof LeaseBusyError)) throw error;
          tally.busy += 1;
        }
      }
    } catch (error) {
      if (error instanceof LeaseBusyError) tally.busy += 1;
      else throw error;
    }
  }
  tally.ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify(tally)}\n`);
}
