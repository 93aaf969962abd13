import { createRequire } from 'node:module';
import type { ts as TypeScript } from 'ts-morph';
import { forgetLastStat } from './read-regular-file.js';

const require = createRequire(import.meta.url);
let loaded: typeof TypeScript | undefined;

/**
 * TypeScript's compiler API — the copy ts-morph bundles — loaded on first use. Loading it costs
 * about half a second, so commands that parse nothing (help, errors, a fully cached graph) never pay.
 */
export function typescript(): typeof TypeScript {
  if (loaded === undefined) {
    // The repository may have made the last stat one of a FIFO: see forgetLastStat.
    forgetLastStat();
    loaded = (require('ts-morph') as typeof import('ts-morph')).ts;
  }
  return loaded;
}
