/**
 * Adapter: what a tsconfig's `extends` chain may make waves read. The chain is the repository's
 * word, and a cloned repository is untrusted: `"extends": "/dev/zero"` (or `../../…/dev/zero`)
 * would read for ever, a FIFO would block for ever, and `/etc/passwd` would be read silently. So
 * every file a chain reads — through get-tsconfig or through TypeScript's fallback — passes here
 * first, and is read only when
 *
 * - its real path lies inside the repository's real path, or it is a package's file: both the
 *   path asked for and its real path go through a `node_modules` folder (`@tsconfig/node20` is
 *   often a pnpm link into `node_modules/.pnpm`, or into a parent workspace's);
 * - it is a regular file of at most 2 MB (read-regular-file.ts).
 *
 * - it is one of the first `MAX_CHAIN_FILES` files the chain names: both readers recurse once per
 *   link, and TypeScript's overflowed the stack on a chain of 2,000 small files;
 * - the chain has read at most `MAX_CHAIN_BYTES`, a file read again counted again: both readers
 *   parse a base once for each time an `extends` array names it (20,000 names of one 100 KB base
 *   took 53 s);
 * - the chain has looked up at most `MAX_CHAIN_MISSES` files that are not there: TypeScript looks
 *   for a package an `extends` names in every ancestor's `node_modules` (an array of 80,000
 *   missing packages took 86 s). Once a chain is refused, every later read is refused at once.
 *
 * Anything else is a refusal with a reason: the tsconfig whose chain named it is skipped (as if it
 * were not there) and reported like any file the graph build did not read.
 *
 * NOTE: get-tsconfig reads every file through the cache it is given (`readFileSync:<path>:utf8`
 * keys), so a cache that reads through this guard intercepts the whole chain — `extends` arrays,
 * packages' `tsconfig` fields and `exports` included — without resolving it a second time here.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { MAX_SOURCE_BYTES } from './read-repo-file.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { readRegularFileSync } from './read-regular-file.js';

/** A file of an `extends` chain that waves refused to read. */
export class ChainRefusal extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`its extends chain names ${file}, ${reason} (not read)`);
    this.name = 'ChainRefusal';
  }
}

export type ChainRead = { ok: true; text: string } | { ok: false; missing: true } | { ok: false; missing: false; refusal: ChainRefusal };

/** The most files one tsconfig's `extends` chain may name (bases of bases, arrays and packages' manifests included); real ones name a handful. */
export const MAX_CHAIN_FILES = 64;

/**
 * The characters one tsconfig's chain may read, every read counted (a base an `extends` array
 * names 20,000 times is parsed 20,000 times): real chains read a few kilobytes.
 */
export const MAX_CHAIN_BYTES = 16 * 1024 * 1024;

/** The look-ups of missing files one tsconfig's chain may make: a package found through a deep folder costs a few dozen. */
export const MAX_CHAIN_MISSES = 4096;

/**
 * The files one tsconfig's chain has read so far, and how much, counted by both readers
 * (get-tsconfig's, through `GuardedTsconfigCache`, and TypeScript's): `begin` before each tsconfig
 * is read. Only files that are there count: TypeScript probes many a missing one for each package
 * it looks for.
 */
export class ChainBudget {
  private readonly named = new Set<string>();
  private read = 0;
  private misses = 0;
  private refused: ChainRefusal | null = null;

  begin(): void {
    this.named.clear();
    this.read = 0;
    this.misses = 0;
    this.refused = null;
  }

  /** The refusal that spent this chain's budget, if one did: every later read is refused with it, before it costs a look-up. */
  get spent(): ChainRefusal | null {
    return this.refused;
  }

  /** A refusal once `file` (found, and read: `text`) is a new file past `MAX_CHAIN_FILES`, or its read goes past `MAX_CHAIN_BYTES`; null before. */
  take(file: string, text: string): ChainRefusal | null {
    if (this.refused) return this.refused;
    if (!this.named.has(file) && this.named.size === MAX_CHAIN_FILES) return this.refuse(file, `past the ${MAX_CHAIN_FILES} files waves follows`);
    if (this.read + text.length > MAX_CHAIN_BYTES) return this.refuse(file, `past the ${MAX_CHAIN_BYTES / 1024 / 1024} MB waves reads for one chain (a file read again counts again)`);
    this.named.add(file);
    this.read += text.length;
    return null;
  }

  /** A refusal once the chain has looked up more than `MAX_CHAIN_MISSES` files that are not there (`file` is one); null before. */
  miss(file: string): ChainRefusal | null {
    if (this.refused) return this.refused;
    return ++this.misses > MAX_CHAIN_MISSES ? this.refuse(file, `past the ${MAX_CHAIN_MISSES.toLocaleString('en-US')} missing files waves looks up for one chain`) : null;
  }

  private refuse(file: string, reason: string): ChainRefusal {
    this.refused = new ChainRefusal(path.resolve(file), reason);
    return this.refused;
  }
}

const inNodeModules = (file: string) => file.split(/[\\/]/).includes('node_modules');

/** Reads files of `extends` chains for the repository at `root` (see the header). */
export class ExtendsGuard {
  private readonly realRoot: string;

  constructor(root: string) {
    try {
      this.realRoot = realpathSync(root);
    } catch {
      this.realRoot = path.resolve(root);
    }
  }

  private inside(real: string): boolean {
    return real === this.realRoot || real.startsWith(this.realRoot.endsWith(path.sep) ? this.realRoot : this.realRoot + path.sep);
  }

  read(file: string): ChainRead {
    const abs = path.resolve(file);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      return { ok: false, missing: true };
    }
    if (!this.inside(real) && !(inNodeModules(abs) && inNodeModules(real))) {
      return { ok: false, missing: false, refusal: new ChainRefusal(abs, "which is outside the repository and not a package's") };
    }
    // The real path has no link left; O_NOFOLLOW keeps one swapped in since from being followed.
    const read = readRegularFileSync(real, { maxBytes: MAX_SOURCE_BYTES });
    if (read.ok && nestsDeeperThan(read.text)) return { ok: false, missing: false, refusal: new ChainRefusal(abs, `which nests more than ${MAX_JSON_DEPTH} levels deep`) };
    if (read.ok) return read;
    if (read.kind === 'missing') return { ok: false, missing: true };
    return { ok: false, missing: false, refusal: new ChainRefusal(abs, `which ${read.reason}`) };
  }
}

const READ_KEY = /^readFileSync:(.*):utf8$/;

/**
 * The cache to hand get-tsconfig's `parseTsconfig`: a file it reads comes through the guard, and a
 * refused one makes `parseTsconfig` throw (and `takeRefusal` says why). A file that is not there is left to
 * get-tsconfig, which reports it as it always does.
 */
export class GuardedTsconfigCache extends Map<string, unknown> {
  private refused: ChainRefusal | null = null;

  constructor(
    private readonly guard: ExtendsGuard,
    private readonly budget: ChainBudget,
  ) {
    super();
  }

  override get(key: string): unknown {
    const read = READ_KEY.exec(key);
    if (read && this.budget.spent) {
      this.refused = this.budget.spent;
      throw this.refused;
    }
    if (!super.has(key)) {
      if (read) {
        const result = this.guard.read(read[1]!);
        if (result.ok) super.set(key, result.text);
        else if (!result.missing) {
          // get-tsconfig replaces what a read throws by its own "Cannot resolve tsconfig": kept for `takeRefusal`.
          this.refused = result.refusal;
          throw result.refusal;
        }
      }
    }
    const value = super.get(key);
    // A file the chain found counts, whether read now or for another tsconfig's chain before.
    const over = read && typeof value === 'string' ? this.budget.take(read[1]!, value) : null;
    if (over) {
      this.refused = over;
      throw over;
    }
    return value;
  }

  /** The refusal that made the last `parseTsconfig` fail, if one did (then forgotten). */
  takeRefusal(): ChainRefusal | null {
    const refused = this.refused;
    this.refused = null;
    return refused;
  }
}
