/**
 * Which repository files are nodes of the import graph: every TypeScript or JavaScript source
 * file, and the JSON files a source imports (`import pkg from '../package.json'`,
 * `require('./data.json')`) — changing a JSON file changes what its importers read. Other files a
 * source may name (styles, images, Markdown) are assets, outside the graph.
 */
import type { RepoPath } from '../types.js';

export const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

/** A file the graph builder scans for imports: each one is a node. */
export function isSourceFile(file: RepoPath): boolean {
  return SOURCE_EXTENSIONS.some((ext) => file.endsWith(ext)) && !file.includes('node_modules/');
}

/** A JSON module: a node of the graph when a source file imports it. */
export function isJsonModule(file: RepoPath): boolean {
  return file.endsWith('.json') && !file.includes('node_modules/');
}
