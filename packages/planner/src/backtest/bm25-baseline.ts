/**
 * The baseline scope inference is judged against: a plain BM25 match of an issue's text against
 * the repository's file paths — what a search box over the file list finds. Each code file of the
 * base (tests included, docs and lockfiles not) is one document, its path cut into words at `/`,
 * `.`, `-`, `_` and other punctuation and at camelCase and digit boundaries (`packages/vite/src/
 * node/plugins/importAnalysis.ts` → packages vite src node plugins import analysis ts); the issue's
 * title and body are cut the same way, and the files ranked by BM25+ (MiniSearch, its default
 * parameters), no prefix or fuzzy matching, ties by path. Pure.
 */
import MiniSearch from 'minisearch';
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
  const docs = files.filter((path) => isCodeFile(path) && !isLeftOut(path));
  const index = new MiniSearch<{ id: number; path: string }>({
    fields: ['path'],
    storeFields: [],
    tokenize: pathWords,
    processTerm: (term) => term,
    searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
  });
  index.addAll(docs.map((path, id) => ({ id, path })));
  const out = new Map<IssueNumber, RepoPath[]>();
  for (const query of queries) {
    const words = [...new Set(pathWords(query.text))];
    if (words.length === 0) {
      out.set(query.number, []);
      continue;
    }
    const hits = index.search(words.join(' '));
    const ranked = hits
      .map((hit) => ({ path: docs[hit.id as number]!, score: hit.score }))
      .sort((x, y) => y.score - x.score || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    out.set(
      query.number,
      ranked.slice(0, k).map((hit) => hit.path),
    );
  }
  return out;
}
