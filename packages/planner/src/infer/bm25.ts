/**
 * Okapi BM25 (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
 * 2009) over small weighted documents — file paths with their declared names, or past commit
 * subjects. Built once per repository and plan, queried once per issue: postings in flat arrays,
 * scores accumulated in one typed array. NOTE: written here rather than taken from a library
 * (minisearch fits the ranking) because the documents are built from our own tokens with per-field
 * weights and queried tens of thousands of times in a backtest; this is 80 lines and allocation-free
 * per query.
 */
import { sortedIncludes } from '../sorted-search.js';

const K1 = 1.2;
const B = 0.75;
/** Terms in more than this share of the documents are skipped. */
const COMMON = 0.5;

export interface Bm25Hit {
  doc: number;
  score: number;
}

export class Bm25 {
  private readonly postings = new Map<string, { docs: number[]; tfs: number[] }>();
  private readonly lengths: Float64Array;
  private readonly avgLength: number;
  private readonly scores: Float64Array;
  /** Each document's length discount, `K1 · (1 − b + b · length / average)`, worked out once. */
  private readonly discount: Float64Array;
  /** Room for the scores of one search's documents, to find the floor of its best in. */
  private readonly buffer: Float64Array;
  readonly size: number;
  /** How much a document's length discounts its term counts (0: not at all, 1: fully). */
  private readonly b: number;

  /**
   * `docs[i]` is document i: its terms with their weights (a term may repeat; weights add up).
   * `b`: the length normalisation, 0.75 by default as in the literature.
   */
  constructor(docs: readonly (readonly (readonly [string, number])[])[], { b = B }: { b?: number } = {}) {
    this.b = b;
    this.size = docs.length;
    this.lengths = new Float64Array(docs.length);
    this.scores = new Float64Array(docs.length);
    let total = 0;
    docs.forEach((terms, doc) => {
      const tf = new Map<string, number>();
      for (const [term, weight] of terms) tf.set(term, (tf.get(term) ?? 0) + weight);
      let length = 0;
      for (const [term, weight] of tf) {
        let list = this.postings.get(term);
        if (!list) this.postings.set(term, (list = { docs: [], tfs: [] }));
        list.docs.push(doc);
        list.tfs.push(weight);
        length += weight;
      }
      this.lengths[doc] = length;
      total += length;
    });
    this.avgLength = docs.length > 0 ? total / docs.length || 1 : 1;
    this.discount = this.lengths.map((length) => K1 * (1 - this.b + (this.b * length) / this.avgLength));
    this.buffer = new Float64Array(docs.length);
  }

  /** How many documents hold a term. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  has(term: string): boolean {
    return this.postings.has(term);
  }

  /** Whether document `doc` holds `term` (a binary search of the term's postings, which are in document order). */
  holds(term: string, doc: number): boolean {
    const docs = this.postings.get(term)?.docs;
    return docs !== undefined && sortedIncludes(docs, doc);
  }

  /**
   * The best `limit` documents for the query terms (each counted once), best first, ties by
   * document; with `also`, the best `also.limit` of the documents it keeps that are not among
   * those follow them, best first.
   */
  search(terms: readonly string[], limit: number, also?: { keep: (doc: number) => boolean; limit: number }): Bm25Hit[] {
    const touched: number[] = [];
    const scores = this.scores;
    for (const term of new Set(terms)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const df = list.docs.length;
      // A term in most documents (the monorepo's own name in every path) ranks nothing and costs the most.
      if (df > this.size * COMMON && this.size > 100) continue;
      const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
      for (let i = 0; i < list.docs.length; i++) {
        const doc = list.docs[i]!;
        const tf = list.tfs[i]!;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] = scores[doc]! + (idf * tf * (K1 + 1)) / (tf + this.discount[doc]!);
      }
    }
    // Only the best `limit` are sorted: a common term touches most documents. The floor is the
    // `limit`-th best score, selected in place (no sort of them all, no array per search).
    let floor = -Infinity;
    if (touched.length > limit) {
      const all = this.buffer;
      for (let i = 0; i < touched.length; i++) all[i] = scores[touched[i]!]!;
      floor = nthLargest(all, touched.length, limit);
    }
    const hits: Bm25Hit[] = [];
    // The best `also.limit` kept documents below the floor, best first (a folder can hold thousands: red team M5).
    const below: Bm25Hit[] = [];
    for (const doc of touched) {
      const score = scores[doc]!;
      if (score >= floor) hits.push({ doc, score });
      else if (also?.keep(doc)) insertBounded(below, { doc, score }, also.limit);
      scores[doc] = 0;
    }
    hits.sort(byScore);
    const best = hits.length > limit ? hits.slice(0, limit) : hits;
    if (!also) return best;
    // Ties at the floor left out of the best are the others' too.
    for (const hit of hits.slice(limit)) if (also.keep(hit.doc)) insertBounded(below, hit, also.limit);
    return [...best, ...below];
  }
}

function byScore(a: Bm25Hit, b: Bm25Hit): number {
  return b.score - a.score || a.doc - b.doc;
}

/** Puts `hit` in its place in `list` (best first) if it is among the best `size`. */
function insertBounded(list: Bm25Hit[], hit: Bm25Hit, size: number): void {
  if (size <= 0 || (list.length === size && byScore(hit, list[size - 1]!) >= 0)) return;
  let at = list.length;
  while (at > 0 && byScore(hit, list[at - 1]!) < 0) at--;
  list.splice(at, 0, hit);
  if (list.length > size) list.pop();
}

/** The `n`-th largest of the first `count` values of `values` (1-based; reorders them): Hoare's selection. */
export function nthLargest(values: Float64Array, count: number, n: number): number {
  let lo = 0;
  let hi = count - 1;
  const target = n - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target]!;
  }
  return values[target]!;
}
