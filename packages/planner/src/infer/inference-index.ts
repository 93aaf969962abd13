/**
 * What scope inference knows about one repository, built once per plan (and kept for the same
 * file list, so that the backtest's second pass and explain pay nothing): the candidate files,
 * the names each declares, their base names and directory names, their message literals indexed
 * by word, a BM25 index of paths and declared names, one of the words of their texts, a BM25 index of past commit subjects, how
 * often each file changed lately, and which files each past conventional-commit scope touched.
 */
import { baseName, parentDir } from '../paths/repo-paths.js';
import type { FileSymbols, PastCommit, RepoIndex, RepoPath, WorkspacePackage } from '../types.js';
import { Bm25 } from './bm25.js';
import { conventionalPrefix } from './issue-signals.js';
import { matchWords, splitPieces, unpackWords } from '../graph/text-tokens.js';
import { lowerBound } from '../sorted-search.js';

export interface LiteralEntry {
  text: string;
  /** Lower-cased, whitespace collapsed, holes (`%s`, `{0}`) cut out. */
  norm: string;
  file: number;
}

export interface InferenceIndex {
  /** The candidate files, sorted (code-unit order): a folder's files are a run of ids. */
  files: RepoPath[];
  fileId: Map<RepoPath, number>;
  /** Declared name → files declaring it. */
  names: Map<string, number[]>;
  /** Third-party package name (lower-cased) → files importing it. */
  importers: Map<string, number[]>;
  /** Lower-cased declared name → files. */
  namesLower: Map<string, number[]>;
  /** Base name without extension(s), lower-cased, `-`/`_`/`.` taken out → files. */
  stems: Map<string, number[]>;
  /** Directory → the candidate files directly in it. */
  filesIn: Map<RepoPath, number[]>;
  /** Directory base name, lower-cased, `-`/`_` taken out → directories. */
  dirs: Map<string, RepoPath[]>;
  literals: LiteralEntry[];
  /** A word of a literal (4+ letters, lower-cased) → literal ids. */
  literalWords: Map<string, number[]>;
  /** Paths and declared names, one document per candidate file. */
  fileText: Bm25;
  /** The words of each candidate file's text (identifiers, comments, strings), one document per file (empty for files never scanned). */
  contentText: Bm25;
  /** Past commit subjects, one document per past commit (same order as `history`). */
  commitText: Bm25;
  history: readonly PastCommit[];
  /** File ids of each past commit's files (candidates only). */
  commitFiles: number[][];
  /** How much likelier than the average file a file of each kind was to change lately (see `fileKind`), per file. */
  kindFactor: Float64Array;
  /** Past commits (indices into `history`) that changed each file, newest first. */
  commitsOf: number[][];
  /** How many past commits changed each file. */
  changes: Uint32Array;
  /** Recency-weighted count of past changes per file. */
  churn: Float64Array;
  maxChurn: number;
  /** Past conventional-commit scope (lower-cased) → file id → times changed under it, that count shared among each commit's files, and weighted by recency too. */
  scopeFiles: Map<string, Map<number, { count: number; share: number; recent: number }>>;
  /** Past conventional-commit scope (lower-cased) → how many past commits bore it. */
  scopeCommits: Map<string, number>;
  packages: readonly WorkspacePackage[];
  /** The ids of the files under a folder: from the first to before the second. */
  filesUnder: (dir: RepoPath) => [number, number];
  /** Out and in neighbours in the import graph. */
  neighbours: (file: RepoPath) => { imports: RepoPath[]; importers: RepoPath[] };
}

/** What can be a candidate: code and text files of the sources, not lockfiles, images or docs. */
const CANDIDATE_EXT = /\.(?:[cm]?[jt]sx?|vue|svelte|astro|json|css|scss|less|html|ya?ml|graphql|sql|rs|go|py)$/;
const LOCKFILE = /(?:^|\/)(?:pnpm-lock\.yaml|package-lock\.json|yarn\.lock|bun\.lockb?|composer\.lock)$/;

export function isCandidateFile(path: RepoPath): boolean {
  return CANDIDATE_EXT.test(path) && !LOCKFILE.test(path) && !path.startsWith('.changeset/') && !/(?:^|\/)node_modules\//.test(path);
}

/** What a file is, for the history's prior on kinds of files: fixtures and examples rarely are the point of a change. */
export function fileKind(path: RepoPath): string {
  if (/(?:^|\/)(?:__)?fixtures?(?:__)?\//.test(path)) return 'fixture';
  if (/(?:^|\/)examples?\//.test(path)) return 'example';
  if (/(?:^|\/)(?:test|tests|__tests__|e2e|spec)\//.test(path) || /\.(?:test|spec)\.[^.]+$/.test(path)) return 'test';
  if (path.startsWith('.github/') || path.startsWith('.')) return 'ci';
  if (/(?:^|\/)package\.json$/.test(path)) return 'manifest';
  if (/\.(?:json|ya?ml)$/.test(path) || /(?:^|\/)[^/]*\.config\.[^/]+$/.test(path)) return 'config';
  if (/\.d\.[mc]?ts$/.test(path)) return 'declaration';
  return 'code';
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function normaliseMessage(text: string): string {
  return text
    .toLowerCase()
    .replace(/%[sdifoj]|\{\d*\}|\$\{[^}]{0,80}\}/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (list[list.length - 1] !== value) list.push(value);
}

export function squash(name: string): string {
  return name.toLowerCase().replace(/[-_.]/g, '');
}

function stemOf(path: RepoPath): string {
  const base = baseName(path);
  const dot = base.indexOf('.', 1);
  return squash(dot < 0 ? base : base.slice(0, dot));
}

/**
 * BM25's length normalisation for the words of files' texts: a long file is discounted less than
 * by BM25's usual 0.75, since fixes land in long files more often than their length suggests.
 * Measured on the backtests: Acc@5 up 0–3.8 points on thirteen repositories, down on none.
 */
const CONTENT_LENGTH_NORM = 0.3;

/** Past commits this many back weigh half as much as the newest in the churn prior. */
const CHURN_HALF_LIFE = 300;
/** File names that say nothing of their own: the folder names the module. */
export const INDEX_STEMS: ReadonlySet<string> = new Set(['index', 'main', 'mod']);

/** Weights of the words of a file's document (exported for the benchmarks' tuning runs). */
export const DOC_WEIGHTS = { path: 1, base: 1, name: 0.25, literal: 0.2, names: 60, literals: 24 };

const built = new WeakMap<readonly RepoPath[], { symbols: unknown; history: unknown; index: InferenceIndex }>();

/** The inference index of a repository; the same one for the same file list, symbols and history. */
export function inferenceIndexOf(repo: RepoIndex): InferenceIndex {
  const hit = built.get(repo.files);
  if (hit && hit.symbols === (repo.symbols ?? repo.readSymbols) && hit.history === repo.history) return hit.index;
  const index = buildInferenceIndex(repo);
  built.set(repo.files, { symbols: repo.symbols ?? repo.readSymbols, history: repo.history, index });
  return index;
}

export function buildInferenceIndex(repo: RepoIndex): InferenceIndex {
  const linksOut = new Set(repo.linksOut ?? []);
  const files = repo.files.filter((f) => isCandidateFile(f) && !linksOut.has(f)).sort(byCodeUnits);
  const fileId = new Map(files.map((f, i) => [f, i]));
  const names = new Map<string, number[]>();
  const namesLower = new Map<string, number[]>();
  const importers = new Map<string, number[]>();
  const stems = new Map<string, number[]>();
  const dirs = new Map<string, RepoPath[]>();
  const literals: LiteralEntry[] = [];
  const literalWords = new Map<string, number[]>();
  const symbols: ReadonlyMap<RepoPath, FileSymbols> = repo.symbols ?? repo.readSymbols?.() ?? new Map();
  const seenDirs = new Set<RepoPath>();
  const docs: [string, number][][] = [];
  /** Each file's packed words (`FileSymbols.words`), unpacked only when the content ranking is first asked for. */
  const contents: string[] = [];

  const filesIn = new Map<RepoPath, number[]>();
  files.forEach((file, id) => {
    push(stems, stemOf(file), id);
    push(filesIn, parentDir(file), id);
    for (let up = parentDir(file); up !== '' && !seenDirs.has(up); up = parentDir(up)) {
      seenDirs.add(up);
      push(dirs, squash(baseName(up)), up);
    }
    const doc: [string, number][] = [];
    // The file's own name, or for an index file (`DocumentControls/index.tsx`) its folder's.
    const dir = parentDir(file);
    const stem = baseName(file).replace(/\.[^.]+$/, '');
    const named = INDEX_STEMS.has(stem.replace(/\..*$/, '')) && dir !== '' ? baseName(dir) : null;
    for (const word of matchWords(named !== null ? parentDir(dir) : dir)) doc.push([word, DOC_WEIGHTS.path]);
    for (const word of matchWords(named ?? stem)) doc.push([word, DOC_WEIGHTS.path + DOC_WEIGHTS.base]);
    const own = symbols.get(file);
    if (own) {
      own.names.forEach((name, i) => {
        push(names, name, id);
        push(namesLower, name.toLowerCase(), id);
        if (i < DOC_WEIGHTS.names) for (const word of matchWords(name)) doc.push([word, DOC_WEIGHTS.name]);
      });
      for (const pkg of own.packages ?? []) push(importers, pkg.toLowerCase(), id);
      own.literals.forEach((text, i) => {
        const entry = literals.length;
        const norm = normaliseMessage(text);
        literals.push({ text, norm, file: id });
        if (DOC_WEIGHTS.literal > 0 && i < DOC_WEIGHTS.literals) for (const word of matchWords(text, 16)) doc.push([word, DOC_WEIGHTS.literal]);
        for (const word of new Set(splitPieces(norm))) if (word.length >= 4) push(literalWords, word, entry);
      });
    }
    docs.push(doc);
    contents.push(own?.words ?? '');
  });

  // History: subjects as documents, churn and scopes per file.
  const history = repo.history ?? [];
  const churn = new Float64Array(files.length);
  const changes = new Uint32Array(files.length);
  const commitsOf: number[][] = files.map(() => []);
  const scopeFiles = new Map<string, Map<number, { count: number; share: number; recent: number }>>();
  const scopeCommits = new Map<string, number>();
  const commitFiles: number[][] = [];
  const commitDocs: [string, number][][] = [];
  history.forEach((commit, age) => {
    const ids = commit.files.map((f) => fileId.get(f)).filter((id): id is number => id !== undefined);
    commitFiles.push(ids);
    const { scopes, rest } = conventionalPrefix(commit.subject);
    const doc: [string, number][] = matchWords(rest, 64).map((w) => [w, 1]);
    for (const scope of scopes) for (const w of matchWords(scope)) doc.push([w, 1]);
    commitDocs.push(doc);
    const weight = Math.pow(0.5, age / CHURN_HALF_LIFE);
    for (const id of ids) {
      churn[id] = churn[id]! + weight;
      changes[id] = changes[id]! + 1;
      commitsOf[id]!.push(age);
    }
    for (const scope of scopes) {
      const key = scope.toLowerCase();
      scopeCommits.set(key, (scopeCommits.get(key) ?? 0) + 1);
      let counts = scopeFiles.get(key);
      if (!counts) scopeFiles.set(key, (counts = new Map()));
      // A commit of many files (a version bump across packages) says less about each of them.
      const share = 1 / Math.sqrt(Math.max(1, ids.length));
      for (const id of ids) {
        const entry = counts.get(id);
        if (entry) {
          entry.count++;
          entry.share += share;
          entry.recent += weight * share;
        } else counts.set(id, { count: 1, share, recent: weight * share });
      }
    }
  });
  let maxChurn = 0;
  for (const c of churn) if (c > maxChurn) maxChurn = c;
  // Kinds of files: changes per file of each kind against changes per file overall (smoothed).
  const kinds = files.map(fileKind);
  const kindFiles = new Map<string, number>();
  const kindChanges = new Map<string, number>();
  let allChanges = 0;
  kinds.forEach((kind) => kindFiles.set(kind, (kindFiles.get(kind) ?? 0) + 1));
  for (const ids of commitFiles) {
    for (const id of ids) {
      kindChanges.set(kinds[id]!, (kindChanges.get(kinds[id]!) ?? 0) + 1);
      allChanges++;
    }
  }
  const overall = (allChanges + 1) / (files.length + 1);
  const factorOf = new Map<string, number>();
  for (const [kind, count] of kindFiles) {
    const rate = ((kindChanges.get(kind) ?? 0) + overall * 5) / (count + 5);
    factorOf.set(kind, history.length === 0 ? (kind === 'fixture' || kind === 'example' ? 0.5 : 1) : Math.min(2, Math.max(0.1, rate / overall)));
  }
  const kindFactor = Float64Array.from(kinds, (kind) => factorOf.get(kind)!);

  const graph = repo.graph;
  let fileText: Bm25 | undefined;
  let commitText: Bm25 | undefined;
  let contentText: Bm25 | undefined;
  return {
    files,
    fileId,
    names,
    namesLower,
    importers,
    stems,
    filesIn,
    dirs,
    literals,
    literalWords,
    // The rankings are built on first use: a plan whose issues all name their files needs neither.
    get fileText() {
      return (fileText ??= new Bm25(docs));
    },
    get contentText() {
      return (contentText ??= new Bm25(contents.map(unpackWords), { b: CONTENT_LENGTH_NORM }));
    },
    get commitText() {
      return (commitText ??= new Bm25(commitDocs));
    },
    history,
    commitFiles,
    churn,
    changes,
    commitsOf,
    maxChurn,
    kindFactor,
    scopeFiles,
    scopeCommits,
    packages: repo.packages,
    // `dir/` up to `dir0` ('0' follows '/'): every path under the folder and nothing else.
    filesUnder: (dir) => (dir === '' ? [0, files.length] : [lowerBound(files, `${dir}/`), lowerBound(files, `${dir}0`)]),
    neighbours: (file) =>
      graph.hasNode(file) ? { imports: graph.outNeighbors(file), importers: graph.inNeighbors(file) } : { imports: [], importers: [] },
  };
}
