/**
 * The baseline scope inference is judged against: a plain BM25 match of an issue's text against
 * the repository's file paths — what a search box over the file list finds. Each code file of the
 * base (tests included, docs and lockfiles not) is one document, its path cut into words at `/`,
 * `.`, `-`, `_` and other punctuation and at camelCase and digit boundaries (`packages/vite/src/
 * node/plugins/importAnalysis.ts` → packages vite src node plugins import analysis ts); the issue's
 * title and body are cut the same way, and the files ranked by Okapi BM25 (k1 1.2, b 0.75: the
 * implementation scope inference ranks with, infer/bm25.ts), no prefix or fuzzy matching, ties by
 * path. Pure.
 */
import { Bm25 } from '../infer/bm25.js';
import type { IssueNumber, RepoPath } from '../types.js';
import { isCodeFile, isLeftOut } from './backlog-from-commits.js';

/** Words of a path or of prose: lower case, cut at punctuation and at camelCase and digit boundaries; one letter dropped. */
export function pathWords(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(/[^A-Za-z0-9]+/)) {
    if (chunk === '') continue;
    const parts = chunk
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .replace(/([A-Za-z])([0-9])/g, '$1 $2')
      .replace(/([0-9])([A-Za-z])/g, '$1 $2')
      .split(' ');
    for (const part of parts) if (part.length > 1) out.push(part.toLowerCase());
  }
  return out;
}

export interface Bm25Query {
  number: IssueNumber;
  text: string;
}

/** The top `k` files of the base for each query, best first (an empty list when no word matches). */
export function bm25Baseline(files: readonly RepoPath[], queries: readonly Bm25Query[], k = 5): Map<IssueNumber, RepoPath[]> {
  const docs = files.filter((path) => isCodeFile(path) && !isLeftOut(path)).sort();
  const index = new Bm25(docs.map((path) => pathWords(path).map((word) => [word, 1] as const)));
  const out = new Map<IssueNumber, RepoPath[]>();
  for (const query of queries) {
    out.set(
      query.number,
      index.search(pathWords(query.text), k).map((hit) => docs[hit.doc]!),
    );
  }
  return out;
}
