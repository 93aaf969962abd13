/**
 * `inferCandidates(issue, index, tree)`: the files an issue most likely touches, each with a
 * confidence (0..1) and every piece of evidence for it, strongest first.
 *
 * Scoring is additive evidence, as a maintainer weighs a report: a stack frame or a path that
 * matches one file by its longest suffix is nearly proof; a name declared in one file, or a
 * message found in one file's literals, is strong, and weaker the more files share it; the
 * conventional-commit scope of the title points at a package or directory, as far as past commits
 * of that scope stayed inside it (and at the files they changed); the words of the title and body, ranked by BM25 against paths
 * and declared names, against the words of each file's text (a button's label, a comment), and
 * against the subjects of past commits (whose files they vote for), are the fallback; the
 * importers and imports of a strongly evidenced file come last. Recent churn breaks near-ties.
 * Confidence is 1 − e^(−score/SCALE): one strong piece of evidence gives about 0.7–0.85, a
 * title's words alone up to about 0.8, one or two common words under 0.5. Deterministic: ties go
 * by path.
 */
import { baseName, containsPath, parentDir } from '../paths/repo-paths.js';
import type { Candidate, Evidence, EvidenceKind } from '../schema/plan-schema.js';
import type { RepoTree } from '../scope/repo-tree.js';
import type { RepoPath } from '../types.js';
import { INDEX_STEMS, normaliseMessage, squash, type InferenceIndex } from './inference-index.js';
import { fileRole, rolesNamed, type FileRole } from './file-roles.js';
import { readIssueSignals, shown, type IssueSignals, type PathSignal, type Where } from './issue-signals.js';
import { isStopWord, matchWords, splitPieces, stemWord } from '../graph/text-tokens.js';

export const MAX_CANDIDATES = 5;
const SCALE = 5;

/** Weights of each kind of evidence (score units; SCALE of them make a confidence of 0.63). Exported for the benchmarks' tuning runs. */
export const INFER_WEIGHTS = {
  frame: 10,
  path: 9,
  identifierCode: 6,
  identifierProse: 5,
  filenameCode: 5,
  filenameProse: 3.5,
  /** A kebab-case name in brackets or a code span that is a file's base name (`[no-unused-vars]`). */
  filenameKebab: 9,
  message: 8,
  messageLoose: 6,
  scope: 2.5,
  /** 0: files past commits of the title's scope changed count by how often; 1: by how recently. */
  scopeRecency: 1,
  /** What a file outside the folders a title scope names keeps of its score (scopes are used loosely). */
  outsideScope: 0.7,
  /**
   * How far a title scope's folders are trusted, from the share of its past commits' changes that
   * stayed inside them (raised to this power; 0: trusted fully whatever the history). A scope its
   * team uses loosely (`fix(core)` for fixes all over the frontend) lends its folders less.
   */
  scopeTrust: 1,
  /** Past commits of a scope at which the files they changed count half (fewer: less, more: up to fully). */
  scopeCommitsHalf: 2,
  lane: 2.5,
  words: 5,
  history: 5,
  neighbour: 1.5,
  /** Files that changed together with a top candidate in past commits. */
  cochange: 1,
  churn: 0.8,
  /** What a test, fixture, example, playground, manifest, config or CI file keeps of its score when the title does not name its role (the fix goes to the source). */
  offRole: 0.2,
  /** How much a file's share of a past commit's vote shrinks with how often it changes (popular files vote less per commit). */
  popularity: 0.5,
  /** Lowest BM25 score of a past commit, against the best, that still votes. */
  similarFloor: 0.35,
  similarCommits: 25,
  /** Files inside the folders of a trusted title scope (or a package or lane the issue names) ranked by the title's words however many files elsewhere rank above them. */
  scopeRecall: 10,
  /** How far (see scopeTrust) a scope's folders must be trusted for that. */
  scopeRecallTrust: 0.8,
  /**
   * BM25 score of the best path match at which the words count half (0: the best match always
   * counts fully). The saturations are what keeps a vague title ("Request failed", "It does not
   * work") unsure: its few common words score low however well one file holds them.
   */
  wordsSaturation: 15,
  /** The same for the best past commit alike. */
  historySaturation: 10,
  /** The words of the files' texts (identifiers, comments, strings), ranked by BM25. */
  content: 4,
  /** BM25 score of the best text match at which it counts half. */
  contentSaturation: 25,
  /** An index file that would export a name the title asks to export (`export ClassStaticBlockScope`). */
  exportEntry: 6,
  /** Distinct words an issue needs for its words to count fully (fewer count that share). */
  specificTerms: 3,
};
const W = INFER_WEIGHTS;

/** A name shared by more files than this is no evidence. */
const MAX_SHARED = 12;

export interface InferOptions {
  /** Config lanes with their keywords (matched as whole words of the title and body). */
  lanes?: Readonly<Record<string, { paths: readonly string[]; keywords?: readonly string[] }>>;
  /** How many candidates (default `MAX_CANDIDATES`). */
  limit?: number;
  /** Only the strong kinds (frames, paths, identifiers, messages, their neighbours): for issues that name paths already. */
  strongOnly?: boolean;
}

interface Acc {
  score: number;
  evidence: (Evidence & { weight: number })[];
}

const STRONG: ReadonlySet<EvidenceKind> = new Set(['frame', 'path', 'identifier', 'filename', 'message']);

class Scores {
  readonly byFile = new Map<number, Acc>();
  add(file: number, weight: number, evidence: Evidence): void {
    if (!(weight > 0)) return;
    let acc = this.byFile.get(file);
    if (!acc) this.byFile.set(file, (acc = { score: 0, evidence: [] }));
    acc.score += weight;
    const same = acc.evidence.find((e) => e.kind === evidence.kind && e.text === evidence.text && e.matched === evidence.matched);
    if (same) same.weight += weight;
    else acc.evidence.push({ ...evidence, weight });
  }
}

function whereOf(where: Where): Evidence['where'] {
  return where.line !== undefined ? { field: where.field, line: where.line } : { field: where.field };
}

/** Files whose path ends with the longest suffix of the segments that matches any (at most `cap`). */
function longestSuffixMatch(segments: readonly string[], tree: RepoTree, within: RepoPath | null, cap: number): RepoPath[] {
  for (let start = 0; start < segments.length; start++) {
    const suffix = segments.slice(start).join('/');
    const found = (tree.isFile(suffix) ? [suffix] : []).concat(tree.filesEndingWith(suffix));
    const inside = within === null ? found : found.filter((f) => containsPath(within, f));
    if (inside.length > 0) return inside.length <= cap ? inside : [];
  }
  return [];
}

/** Other spellings a built or bundled path has in the sources: dist/ → src/, .js → .ts. */
function sourceVariants(segments: readonly string[]): string[][] {
  const out: string[][] = [];
  const last = segments[segments.length - 1]!;
  const stem = last.replace(/\.(?:[cm]?js|jsx|d\.ts)$/, '');
  const dirs = segments.slice(0, -1).map((s) => (s === 'dist' || s === 'lib' || s === 'build' || s === 'esm' || s === 'cjs' ? 'src' : s));
  const changedDir = dirs.some((d, i) => d !== segments[i]);
  if (stem !== last) for (const ext of ['ts', 'tsx', 'mts', 'cts']) out.push([...dirs, `${stem}.${ext}`]);
  if (changedDir) out.push([...dirs, last]);
  // Without the build folder at all (dist/index.js → index.ts at the package root's src).
  return out;
}

function packageNamed(index: InferenceIndex, name: string): { name: string; dir: RepoPath } | null {
  const lower = name.toLowerCase();
  return index.packages.find((p) => p.name.toLowerCase() === lower && p.dir !== '') ?? null;
}

function matchPaths(signals: IssueSignals, index: InferenceIndex, tree: RepoTree, scores: Scores, packageDirs: Map<RepoPath, Evidence>): void {
  for (const signal of signals.paths) {
    let within: RepoPath | null = null;
    if (signal.nodeModule !== null) {
      const pkg = packageNamed(index, signal.nodeModule);
      if (!pkg) continue; // a third-party package: nothing of ours
      within = pkg.dir;
      if (signal.segments.length === 0) {
        packageDirs.set(pkg.dir, { kind: 'path', text: signal.text, where: whereOf(signal.where), matched: `package ${pkg.name} (${pkg.dir})` });
        continue;
      }
    }
    let found = longestSuffixMatch(signal.segments, tree, within, 5);
    if (found.length === 0) for (const variant of sourceVariants(signal.segments)) if ((found = longestSuffixMatch(variant, tree, within, 5)).length > 0) break;
    found = found.filter((f) => index.fileId.has(f));
    if (found.length === 0) {
      if (within !== null) {
        const pkg = packageNamed(index, signal.nodeModule!)!;
        packageDirs.set(pkg.dir, { kind: 'path', text: signal.text, where: whereOf(signal.where), matched: `package ${pkg.name} (${pkg.dir})` });
      }
      continue;
    }
    const weight = (signal.kind === 'frame' ? W.frame : W.path) / found.length;
    for (const file of found) scores.add(index.fileId.get(file)!, weight, { kind: signal.kind, text: signal.text, where: whereOf(signal.where), matched: file });
  }
}

/** A file's base name without its extensions, lower-cased (`no-unused-vars.test.ts` → `no-unused-vars`). */
function stemWithoutExtensions(path: RepoPath): string {
  const base = baseName(path);
  const dot = base.indexOf('.', 1);
  return (dot < 0 ? base : base.slice(0, dot)).toLowerCase();
}

function matchNames(signals: IssueSignals, index: InferenceIndex, scores: Scores): void {
  for (const name of signals.names) {
    const where = whereOf(name.where);
    const declared = index.names.get(name.text) ?? (name.text.length >= 5 ? index.namesLower.get(name.text.toLowerCase()) : undefined);
    if (declared && declared.length <= MAX_SHARED) {
      const exact = index.names.has(name.text);
      // A plain lower-case word (`style`, `render`) names many things besides this declaration.
      const plain = /^[a-z]+$/.test(name.text) ? 0.5 : 1;
      const weight = ((name.code ? W.identifierCode : W.identifierProse) * (exact ? 1 : 0.6) * plain) / Math.pow(declared.length, 0.8);
      for (const id of declared) scores.add(id, weight, { kind: 'identifier', text: name.text, where, matched: `declares ${name.text}` });
    }
    const key = squash(name.text);
    if (key.length < 3) continue;
    const named = index.stems.get(key);
    if (named && named.length <= MAX_SHARED) {
      const plain = /^[a-z]+$/.test(name.text) ? 0.5 : 1;
      // A kebab-case name written as code (`[no-unused-vars]`) that is a file's very base name is nearly a path.
      const kebab = name.code && name.text.includes('-');
      const lower = name.text.toLowerCase();
      // Shared among the sources so named (a source and its test are one module, not two guesses).
      const sources = named.filter((id) => fileRole(index.files[id]!) === 'source').length || named.length;
      for (const id of named) {
        const exact = kebab && stemWithoutExtensions(index.files[id]!) === lower;
        const weight = ((exact ? W.filenameKebab : name.code ? W.filenameCode : W.filenameProse) * plain) / Math.pow(sources, 0.8);
        scores.add(id, weight, { kind: 'filename', text: name.text, where, matched: baseName(index.files[id]!) });
      }
    }
    const dirs = index.dirs.get(key);
    if (dirs && dirs.length <= 4) {
      // A directory named so (`CartView/`): its index file, else its files, share the weight.
      for (const dir of dirs) {
        // A workspace package named so is the scope's or the package name's to weigh (all its
        // files gain): its own folder holds its manifest and build stubs (`client.js` →
        // `./dist/client`), and its entry only re-exports — neither is the point of a change.
        if (index.packages.some((p) => p.dir === dir)) continue;
        const inside = index.filesIn.get(dir) ?? [];
        const entry = inside.filter((id) => baseName(index.files[id]!).startsWith('index.'));
        const chosen = entry.length > 0 ? entry : inside.slice(0, 5);
        for (const id of chosen) {
          scores.add(id, (name.code ? W.filenameCode : W.filenameProse) / (2 * dirs.length * chosen.length), { kind: 'filename', text: name.text, where, matched: `${dir}/` });
        }
      }
    }
  }
}

/**
 * Where a title asks to export something: `export`, `exports` or `re-export` as the verb of the
 * subject — at its start, or after a comma or an "and" (`skip no-op callbacks and export
 * dehydrateQuery`). Not the noun of a product's feature ("Export to PDF from ExportPanel",
 * "ShareExport menu exports HTML"): that does not start a clause.
 */
const EXPORT_VERB = /(?:^|[,;:]\s*|\band\s+|\balso\s+)(?:re-?)?exports?\s+/gi;
/** Words that end the list of what a title asks to export (`export X from 'pkg'`, `export X for …`). */
const EXPORT_PHRASE_END = new Set(['from', 'to', 'in', 'into', 'for', 'as', 'on', 'with', 'when', 'if', 'so', 'because', 'by', 'via', 'instead', 'of']);

/** The names a title asks to export: the words after each export verb, up to a word that ends the list (at most eight). */
function exportedNames(title: string): Set<string> {
  const names = new Set<string>();
  for (const match of title.slice(0, 300).matchAll(EXPORT_VERB)) {
    const words = title.slice(match.index + match[0].length).split(/\s+/, 8);
    for (const raw of words) {
      const word = raw.replace(/^[`'"(]+|[`'",.;:)]+$/g, '');
      if (EXPORT_PHRASE_END.has(word.toLowerCase())) break;
      if (word !== '') names.add(word);
    }
  }
  return names;
}

function matchExportEntries(signals: IssueSignals, index: InferenceIndex, tree: RepoTree, scores: Scores): void {
  const asked = exportedNames(signals.titleText);
  if (asked.size === 0) return;
  let named = 0;
  for (const name of signals.names) {
    if (name.where.field !== 'title' || !asked.has(name.text)) continue;
    const declared = (index.names.get(name.text) ?? []).filter((id) => fileRole(index.files[id]!) === 'source');
    if (declared.length === 0 || declared.length > 3) continue;
    // A title asks to export a name or two; a title of many names says no more for each.
    if (++named > MAX_EXPORTED) return;
    for (const id of declared) {
      const file = index.files[id]!;
      const pkg = tree.packageOf(file)?.dir ?? '';
      const entries: number[] = [];
      // The index files of a folder, looked up by name (a folder may hold thousands of files).
      const take = (dir: RepoPath) => {
        for (const entryName of INDEX_FILES) {
          const other = index.fileId.get(dir === '' ? entryName : `${dir}/${entryName}`);
          if (other !== undefined && other !== id && !entries.includes(other) && fileRole(index.files[other]!) === 'source') entries.push(other);
        }
      };
      for (let dir = parentDir(file); ; dir = parentDir(dir)) {
        take(dir);
        if (dir === pkg || dir === '') break;
      }
      take(pkg === '' ? 'src' : `${pkg}/src`);
      entries.slice(0, 4).forEach((entry, k) => {
        scores.add(entry, W.exportEntry / (declared.length * (1 + k)), { kind: 'identifier', text: name.text, where: whereOf(name.where), matched: `the index that would export ${name.text} from ${file}` });
      });
    }
  }
}

/** The most names of one title whose index files are looked for. */
const MAX_EXPORTED = 4;
/** The base names of a folder's index file. */
const INDEX_FILES = [...INDEX_STEMS].flatMap((stem) => ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs'].map((ext) => `${stem}.${ext}`));

/** The declared name a word stands for, lower-cased or glued to the next word (`looserecord`, `strictObjectinside`): the name and what was left, or null. */
export function gluedName(word: string, index: InferenceIndex): { name: string; files: number[] } | null {
  if (word.length < 5 || word.length > 60) return null;
  const lower = word.toLowerCase();
  // Only names of two words or more (`looseRecord`): one word (`Restore`) is a word of prose as much as a name; the
  // words of paths and names make the terms of `fileText`, so a term there is one word.
  const multiWord = (name: string) => !index.fileText.has(name) && !index.fileText.has(stemWord(name));
  const whole = index.namesLower.get(lower);
  if (whole) return multiWord(lower) ? { name: lower, files: whole } : null;
  // The longest declared prefix (5 letters at least) before a rest of 3 letters at least.
  for (let end = lower.length - 3; end >= 5; end--) {
    const prefix = lower.slice(0, end);
    const files = index.namesLower.get(prefix);
    if (files && multiWord(prefix)) return { name: prefix, files };
  }
  return null;
}

/** Words of the title that are declared names written lower-case or glued to the next word (`looserecord`, `strictObjectinside`). */
function matchGluedNames(signals: IssueSignals, index: InferenceIndex, scores: Scores): void {
  const seen = new Set(signals.names.filter((n) => index.names.has(n.text) || (n.text.length >= 5 && index.namesLower.has(n.text.toLowerCase()))).map((n) => n.text.toLowerCase()));
  const words = signals.titleText.slice(0, 300).split(/[^A-Za-z0-9_$]+/).slice(0, 40);
  for (const word of words) {
    if (word.length < 6 || seen.has(word.toLowerCase()) || isStopWord(word)) continue;
    seen.add(word.toLowerCase());
    const glued = gluedName(word, index);
    if (!glued || glued.files.length > MAX_SHARED) continue;
    // Only a name written otherwise than declared: a plain word that is also a declared name (`render`) is no news.
    if (index.names.has(word)) continue;
    const weight = (W.identifierProse * 0.6) / Math.pow(glued.files.length, 0.8);
    for (const id of glued.files) scores.add(id, weight, { kind: 'identifier', text: word, where: { field: 'title' }, matched: `declares ${glued.name} (any case)` });
  }
}

/** Package names: a workspace package points at its folder; a third-party one at the files importing it. */
function matchPackages(signals: IssueSignals, index: InferenceIndex, scores: Scores, restrict: Map<RepoPath, Evidence>): void {
  for (const signal of signals.packages) {
    const where = whereOf(signal.where);
    const own = packageNamed(index, signal.text);
    if (own) {
      restrict.set(own.dir, { kind: 'identifier', text: signal.text, where, matched: `package ${own.name} (${own.dir}/)` });
      continue;
    }
    const files = index.importers.get(signal.text.toLowerCase());
    if (!files || files.length > MAX_SHARED) continue;
    const weight = W.identifierCode / Math.pow(files.length, 0.8);
    for (const id of files) scores.add(id, weight, { kind: 'identifier', text: signal.text, where, matched: `imports ${signal.text}` });
  }
}

/** A hole of a message template: `${port}`, `%s`, `%d`, `{0}`. */
const HOLE = '\u0001';
const HOLES = /\$\{[^}]{0,80}\}|%[sdifoj]|\{\d{1,2}\}/g;
const MAX_MESSAGE_TOKENS = 60;
/** Literals with holes checked word by word per message (each check is at most 60 × 60 word comparisons). */
const MAX_HOLED_CHECKS = 200;

/** The words of a message or literal, lower-cased, punctuation at their edges taken off (at most `MAX_MESSAGE_TOKENS`). */
export function messageTokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.slice(0, 600).toLowerCase().split(/\s+/)) {
    let a = 0;
    let b = raw.length;
    while (a < b && `.,:;!?"'\`()[]<>`.includes(raw[a]!)) a++;
    while (b > a && `.,:;!?"'\`()[]<>`.includes(raw[b - 1]!)) b--;
    if (b > a) out.push(raw.slice(a, b));
    if (out.length >= MAX_MESSAGE_TOKENS) break;
  }
  return out;
}

/** Whether a word of a literal (with holes, each standing for one or more characters) matches a word of a message. */
function holedWordMatches(pattern: string, word: string): boolean {
  if (!pattern.includes(HOLE)) return pattern === word;
  const parts = pattern.split(HOLE);
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!word.startsWith(first)) return false;
  let at = first.length;
  for (let k = 1; k < parts.length - 1; k++) {
    const found = word.indexOf(parts[k]!, at + 1); // the hole before it takes one character at least
    if (found < 0) return false;
    at = found + parts[k]!.length;
  }
  return word.length - last.length >= at + 1 && word.endsWith(last);
}

/**
 * A literal with holes (`Port ${port} is already in use`) against a message as written (`Port
 * 5173 is already in use`): word by word, a hole standing for any run of non-space characters;
 * the literal inside the message or the message inside the literal, three words at least, two of
 * them not holes. O(words × words), both capped.
 */
export function holedMatch(literal: string, messageWords: readonly string[]): boolean {
  if (!literal.includes('%') && !literal.includes('{')) return false;
  const marked = literal.slice(0, 600).replace(HOLES, HOLE);
  if (!marked.includes(HOLE)) return false;
  const pattern = messageTokens(marked);
  const isSolid = (word: string) => word.replaceAll(HOLE, '').length >= 2;
  const solid = pattern.filter(isSolid).length;
  if (pattern.length < 3 || solid < 2) return false;
  // A hole at an edge of the matched words stands for a word of the message nothing checked: the
  // message "request failed with timeout" is not the literal "Provider ${} failed with ${} error"
  // on the strength of "failed with". Such a match needs three solid words.
  const sure = (from: number, to: number) => {
    let count = 0;
    for (let k = from; k < to; k++) if (isSolid(pattern[k]!)) count++;
    return count >= 3 || (isSolid(pattern[from]!) && isSolid(pattern[to - 1]!));
  };
  const runs = (outer: number, inner: number, at: (i: number, k: number) => boolean, accept: (i: number) => boolean) => {
    for (let i = 0; i + inner <= outer; i++) {
      let k = 0;
      while (k < inner && at(i, k)) k++;
      if (k === inner && accept(i)) return true;
    }
    return false;
  };
  // The literal inside the message, or the message (three words at least) inside the literal.
  if (sure(0, pattern.length) && runs(messageWords.length, pattern.length, (i, k) => holedWordMatches(pattern[k]!, messageWords[i + k]!), () => true)) return true;
  return (
    messageWords.length >= 3 &&
    runs(pattern.length, messageWords.length, (i, k) => holedWordMatches(pattern[i + k]!, messageWords[k]!), (i) => sure(i, i + messageWords.length))
  );
}

function matchMessages(signals: IssueSignals, index: InferenceIndex, scores: Scores): void {
  for (const message of signals.messages) {
    const norm = normaliseMessage(message.text);
    if (norm.length < 8) continue;
    // The literals sharing the message's rarest words: few to check, whatever the repository's size.
    const words = [...new Set(splitPieces(norm))].filter((w) => w.length >= 4 && index.literalWords.has(w));
    words.sort((a, b) => index.literalWords.get(a)!.length - index.literalWords.get(b)!.length || (a < b ? -1 : 1));
    const checked = new Set<number>();
    const hits = new Map<number, { exact: boolean; literal: string }>();
    const messageWords = messageTokens(message.text);
    let holedChecks = 0;
    for (const word of words.slice(0, 3)) {
      for (const id of index.literalWords.get(word)!.slice(0, 300)) {
        if (checked.has(id)) continue;
        checked.add(id);
        const literal = index.literals[id]!;
        // A literal inside the message must be a good part of it (not a word like "install"); the message inside a literal, a phrase.
        const partOf = literal.norm.length >= Math.max(12, norm.length * 0.3) && literal.norm.includes(' ');
        const holds = norm.length >= 12;
        const exact = (partOf && message.text.includes(literal.text)) || (holds && literal.text.includes(message.text));
        const loose = (partOf && norm.includes(literal.norm)) || (holds && literal.norm.includes(norm)) || ((literal.text.includes('%') || literal.text.includes('{')) && holedChecks++ < MAX_HOLED_CHECKS && holedMatch(literal.text, messageWords));
        if (!exact && !loose) continue;
        const previous = hits.get(literal.file);
        if (!previous || (exact && !previous.exact)) hits.set(literal.file, { exact, literal: literal.text });
      }
    }
    if (hits.size === 0 || hits.size > MAX_SHARED) continue;
    for (const [file, hit] of hits) {
      const weight = (hit.exact ? W.message : W.messageLoose) / Math.pow(hits.size, 0.8);
      scores.add(file, weight, { kind: 'message', text: shown(message.text), where: whereOf(message.where), matched: `"${shown(hit.literal)}"` });
    }
  }
}

/** Directories a title scope names: a workspace package so named, else source directories of that name (else any of that name). */
function scopeDirs(scope: string, index: InferenceIndex): RepoPath[] {
  const lower = scope.toLowerCase();
  const pkgs = index.packages.filter((p) => {
    if (p.dir === '') return false;
    const name = p.name.toLowerCase();
    const bare = name.includes('/') ? name.slice(name.indexOf('/') + 1) : name;
    return name === lower || bare === lower || bare === `${lower}js` || bare.endsWith(`-${lower}`) || baseName(p.dir).toLowerCase() === lower;
  });
  // Packages and folders of the sources before test fixtures, playgrounds and examples of the same name (`@test/dev-container`).
  const isSource = (dir: RepoPath) => fileRole(`${dir}/x.ts`) === 'source';
  const sourcePkgs = pkgs.filter((p) => isSource(p.dir));
  if (sourcePkgs.length > 0) return sourcePkgs.map((p) => p.dir).sort();
  const all = index.dirs.get(squash(scope)) ?? [];
  const sources = all.filter(isSource);
  if (sources.length > 0) return sources.length <= 8 ? sources : [];
  if (pkgs.length > 0) return pkgs.map((p) => p.dir).sort();
  return all.length <= 8 ? all : [];
}

/**
 * A title scope that names no package or source folder but a source file's base name (`fix(worker): …`
 * → plugins/worker.ts) names that file; one that names a tool whose config file the repository has
 * (`chore(rollup): …` → rollup.config.mjs) names that config file, and makes configs the point.
 * Returns the roles so named.
 */
function matchScopeFiles(signals: IssueSignals, index: InferenceIndex, scores: Scores): Set<FileRole> {
  const named = new Set<FileRole>();
  for (const scope of signals.scopes.slice(0, 4)) {
    const key = squash(scope);
    if (key.length < 3 || scopeDirs(scope, index).some((dir) => fileRole(`${dir}/x.ts`) === 'source')) continue;
    const stems = index.stems.get(key) ?? [];
    let files = stems.filter((id) => fileRole(index.files[id]!) === 'source');
    if (files.length === 0) {
      files = stems.filter((id) => fileRole(index.files[id]!) === 'config');
      if (files.length > 0 && files.length <= 4) named.add('config');
    }
    if (files.length === 0 || files.length > 4) continue;
    for (const id of files) scores.add(id, W.filenameCode / Math.pow(files.length, 0.8), { kind: 'filename', text: scope, where: { field: 'title' }, matched: baseName(index.files[id]!) });
  }
  return named;
}

const trustOf = new WeakMap<InferenceIndex, Map<string, number>>();

/** How far the folders a scope names are trusted: the share of its past commits' changes inside them (each commit's files sharing one vote), to the power `scopeTrust`; 1 without history. */
function scopeTrust(scope: string, dirs: readonly RepoPath[], index: InferenceIndex): number {
  let known = trustOf.get(index);
  if (!known) trustOf.set(index, (known = new Map()));
  const key = scope.toLowerCase();
  let trust = known.get(key);
  if (trust === undefined) {
    let inside = 0;
    let all = 0;
    for (const [id, { share }] of index.scopeFiles.get(key) ?? []) {
      all += share;
      if (dirs.some((dir) => containsPath(dir, index.files[id]!))) inside += share;
    }
    trust = all > 0 && W.scopeTrust > 0 ? Math.pow(inside / all, W.scopeTrust) : 1;
    known.set(key, trust);
  }
  return trust;
}

function matchScopes(signals: IssueSignals, index: InferenceIndex, scores: Scores, restrict: Map<RepoPath, Evidence>, trust: Map<RepoPath, number>): void {
  for (const scope of signals.scopes.slice(0, 4)) {
    const evidenceText = scope;
    const dirs = scopeDirs(scope, index);
    const trusted = scopeTrust(scope, dirs, index);
    for (const dir of dirs) {
      restrict.set(dir, { kind: 'scope', text: evidenceText, where: { field: 'title' }, matched: `${dir}/` });
      trust.set(dir, trusted);
    }
    // Files past commits of this scope changed, by how often.
    const past = index.scopeFiles.get(scope.toLowerCase());
    if (past && past.size > 0) {
      let max = 0;
      for (const { share, recent } of past.values()) max = Math.max(max, share * (1 - W.scopeRecency) + recent * W.scopeRecency);
      // One or two past commits of a scope say little of where the next one goes.
      const commits = index.scopeCommits.get(scope.toLowerCase()) ?? 0;
      const sure = commits / (commits + W.scopeCommitsHalf);
      for (const [id, { count, share, recent }] of past) {
        const weight = (sure * W.scope * (share * (1 - W.scopeRecency) + recent * W.scopeRecency)) / max;
        if (weight < W.scope * 0.05) continue; // a long tail of files the scope once touched: no evidence worth its cost
        scores.add(id, weight, { kind: 'scope', text: evidenceText, where: { field: 'title' }, matched: `changed by ${count} past ${scope} commit(s)` });
      }
    }
  }
}

function matchLanes(title: string, body: string, options: InferOptions, tree: RepoTree, restrict: Map<RepoPath, Evidence>): void {
  for (const [name, lane] of Object.entries(options.lanes ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const keyword of lane.keywords ?? []) {
      const kw = keyword.trim().toLowerCase();
      if (kw === '' || kw.length > 60) continue;
      const inTitle = wordIn(title.toLowerCase(), kw);
      const inBody = !inTitle && wordIn(body.slice(0, 20_000).toLowerCase(), kw);
      if (!inTitle && !inBody) continue;
      for (const pattern of lane.paths) {
        const dir = pattern.replace(/\/\*\*?(?:\/\*)?$/, '').replace(/\/$/, '');
        if (tree.isDir(dir)) restrict.set(dir, { kind: 'lane', text: keyword, where: { field: inTitle ? 'title' : 'body' }, matched: `lane ${name} (${dir}/)` });
      }
      break;
    }
  }
}

function wordIn(text: string, word: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(word, from);
    if (at < 0) return false;
    const before = at === 0 ? ' ' : text[at - 1]!;
    const after = text[at + word.length] ?? ' ';
    if (!/\w/.test(before) && !/\w/.test(after)) return true;
    from = at + 1;
  }
}

/**
 * The weight of a ranked hit: `weight` for the best, in proportion below it, and all of them less
 * when even the best scored low against `saturation` (few or common words).
 */
function rankedWeight(weight: number, score: number, best: number, saturation: number): number {
  if (!(best > 0)) return 0;
  return ((weight * score) / best) * (saturation > 0 ? best / (best + saturation) : 1);
}

/** How many of a word ranking's best hits count. */
const WORD_HITS = 50;

function matchWordsRanked(signals: IssueSignals, index: InferenceIndex, scores: Scores, restrict: ReadonlyMap<RepoPath, Evidence>, trust: ReadonlyMap<RepoPath, number>): void {
  // The folders of a title scope its team keeps to (see scopeTrust), a package or a lane the issue
  // names: their best files are ranked too, however many files elsewhere hold the title's words
  // better — else those would hide them from the folder's weight.
  const scoped = [...restrict.keys()].filter((dir) => (trust.get(dir) ?? 1) >= W.scopeRecallTrust);
  const runs = scoped.map((dir) => index.filesUnder(dir));
  const also = runs.length === 0 ? undefined : { keep: (doc: number) => runs.some(([from, to]) => doc >= from && doc < to), limit: W.scopeRecall };
  const titleWords = matchWords(signals.titleText, 64);
  const bodyWords = matchWords(signals.bodyText, 400);
  const terms = [...new Set([...titleWords, ...bodyWords.filter((w) => index.fileText.has(w)).slice(0, 60)])];
  const contentTerms = [...new Set([...titleWords, ...bodyWords.filter((w) => index.contentText.has(w)).slice(0, 60)])];
  if (terms.length === 0 && contentTerms.length === 0) return;
  // One or two words ("It does not work", "Request failed") say little however well a file holds them: their words count a third (one word) or two thirds (two).
  const specific = Math.min(1, new Set([...terms, ...contentTerms]).size / W.specificTerms);
  const inTitle = new Set(titleWords);
  const where = (word: string): Evidence['where'] => ({ field: inTitle.has(word) ? 'title' : 'body' });
  // Paths and declared names.
  const hits = index.fileText.search(terms, WORD_HITS, also);
  const best = hits[0]?.score ?? 0;
  for (const hit of hits) {
    const file = index.files[hit.doc]!;
    const pathWords = new Set(matchWords(file));
    const matched = terms.filter((t) => pathWords.has(t));
    const shownWords = matched.length > 0 ? matched : terms.filter((t) => index.fileText.has(t)).slice(0, 3);
    scores.add(hit.doc, rankedWeight(specific * W.words, hit.score, best, W.wordsSaturation), {
      kind: 'words',
      text: shownWords.join(' '),
      where: where(shownWords[0] ?? ''),
      matched: matched.length > 0 ? file : `names declared in ${file}`,
    });
  }
  // The words of the files' texts: what the code and its comments say (`refresh button` in the page that has one).
  const inContent = index.contentText.search(contentTerms, WORD_HITS, also);
  const bestContent = inContent[0]?.score ?? 0;
  for (const hit of inContent) {
    const held = contentTerms.filter((t) => index.contentText.holds(t, hit.doc));
    scores.add(hit.doc, rankedWeight(specific * W.content, hit.score, bestContent, W.contentSaturation), {
      kind: 'words',
      text: held.slice(0, 4).join(' '),
      where: where(held[0] ?? ''),
      matched: `the text of ${index.files[hit.doc]!}`,
    });
  }
  // Past commits that read alike vote for the files they changed.
  if (index.commitText.size === 0) return;
  const similar = index.commitText.search(terms, W.similarCommits);
  const top = similar[0]?.score ?? 0;
  const historyWeight = rankedWeight(specific * W.history, top, top, W.historySaturation);
  const votes = new Map<number, { vote: number; commit: number }>();
  for (const hit of similar) {
    if (hit.score < top * W.similarFloor) break;
    const ids = index.commitFiles[hit.doc]!;
    if (ids.length === 0) continue;
    const share = hit.score / top / Math.sqrt(ids.length);
    for (const id of ids) {
      const own = share / Math.pow(1 + index.changes[id]!, W.popularity * 0.5);
      const v = votes.get(id);
      if (!v) votes.set(id, { vote: own, commit: hit.doc });
      else v.vote += own;
    }
  }
  let maxVote = 0;
  for (const v of votes.values()) maxVote = Math.max(maxVote, v.vote);
  // One piece of evidence per past commit, shared by the files it votes for.
  const said = new Map<number, Evidence>();
  for (const [id, v] of votes) {
    if (v.vote < maxVote * 0.05) continue;
    let evidence = said.get(v.commit);
    if (!evidence) {
      const subject = index.history[v.commit]!.subject;
      const words = new Set(matchWords(subject));
      const common = terms.filter((t) => words.has(t));
      said.set(v.commit, (evidence = { kind: 'words', text: common.join(' '), where: where(common[0] ?? ''), matched: `past commit: ${shown(subject)}` }));
    }
    scores.add(id, (historyWeight * v.vote) / maxVote, evidence);
  }
}

function addNeighbours(index: InferenceIndex, scores: Scores, factor: (id: number) => number): void {
  const strong = [...scores.byFile.entries()]
    .filter(([, acc]) => acc.evidence.some((e) => STRONG.has(e.kind) && e.weight >= 3))
    .sort((a, b) => b[1].score - a[1].score || a[0] - b[0])
    .slice(0, 3);
  for (const [id, acc] of strong) {
    const file = index.files[id]!;
    const { imports, importers } = index.neighbours(file);
    const share = Math.min(1, acc.score / 10) * W.neighbour;
    const add = (list: RepoPath[], how: string) => {
      if (list.length === 0 || list.length > 30) return;
      for (const other of list) {
        const otherId = index.fileId.get(other);
        if (otherId !== undefined) scores.add(otherId, (share * factor(otherId)) / Math.sqrt(list.length), { kind: 'neighbour', text: acc.evidence[0]!.text, where: acc.evidence[0]!.where, matched: `${how} ${file}` });
      }
    };
    add(imports, 'imported by');
    add(importers, 'imports');
  }
}

/** Files that past commits changed together with the best candidates (a source and its test, a module and its types). */
function addCochanges(index: InferenceIndex, scores: Scores, factor: (id: number) => number): void {
  // The seeds' scores as they stand now: what one adds to another never feeds back (three files
  // always changed together would otherwise lift each other from a stray word to near certainty).
  const ranked = [...scores.byFile.entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, 3).map(([id, acc]) => [id, acc, acc.score] as const);
  const top = ranked[0]?.[2] ?? 0;
  if (top <= 0) return;
  for (const [id, acc, seed] of ranked) {
    const commits = index.commitsOf[id]!;
    if (commits.length < 2) continue;
    const together = new Map<number, number>();
    for (const c of commits.slice(0, 50)) for (const other of index.commitFiles[c]!) if (other !== id) together.set(other, (together.get(other) ?? 0) + 1);
    const file = index.files[id]!;
    for (const [other, count] of together) {
      const ratio = count / Math.min(commits.length, 50);
      if (count < 2 || ratio < 0.25) continue;
      // In proportion to the seed against the best, and no more than the best is sure: weak seeds lend little.
      scores.add(other, W.cochange * (seed / top) * Math.min(1, top / SCALE) * ratio * factor(other), { kind: 'neighbour', text: acc.evidence[0]!.text, where: acc.evidence[0]!.where, matched: `changed with ${file} in ${count} past commit(s)` });
    }
  }
}

/** The candidates of one issue, best first (at most `MAX_CANDIDATES`). */
export function inferCandidates(
  issue: { title: string; body: string },
  index: InferenceIndex,
  tree: RepoTree,
  options: InferOptions = {},
): Candidate[] {
  const signals = readIssueSignals(issue.title, issue.body);
  const scores = new Scores();
  const restrict = new Map<RepoPath, Evidence>();
  /** How far each scope folder of `restrict` is trusted (absent: fully). */
  const trust = new Map<RepoPath, number>();
  matchPaths(signals, index, tree, scores, restrict);
  matchNames(signals, index, scores);
  matchPackages(signals, index, scores, restrict);
  matchMessages(signals, index, scores);
  const scopeRoles = matchScopeFiles(signals, index, scores);
  matchGluedNames(signals, index, scores);
  matchExportEntries(signals, index, tree, scores);
  if (!options.strongOnly) {
    matchScopes(signals, index, scores, restrict, trust);
    matchLanes(issue.title, issue.body, options, tree, restrict);
    matchWordsRanked(signals, index, scores, restrict, trust);
  }
  // A scope, a lane or a package named through node_modules: files under it gain, files outside
  // lose — as far as the scope's past commits stayed inside its folders.
  if (restrict.size > 0) {
    const dirs = [...restrict.keys()].sort();
    const least = Math.min(...dirs.map((d) => trust.get(d) ?? 1));
    for (const [id, acc] of scores.byFile) {
      const file = index.files[id]!;
      const dir = dirs.find((d) => containsPath(d, file));
      if (dir !== undefined) {
        const evidence = restrict.get(dir)!;
        const weight = evidence.kind === 'lane' ? W.lane : W.scope * (trust.get(dir) ?? 1);
        acc.score += weight;
        acc.evidence.push({ ...evidence, weight });
      } else if (!acc.evidence.some((e) => STRONG.has(e.kind))) acc.score *= 1 - (1 - W.outsideScope) * least;
    }
  }
  if (!options.strongOnly) {
    for (const [id, acc] of scores.byFile) {
      if (index.maxChurn > 0) acc.score += (W.churn * Math.log1p(index.churn[id]!)) / Math.log1p(index.maxChurn);
      // What kinds of files changed lately (fixtures and examples rarely are the point), unless the issue points at this one.
      if (!acc.evidence.some((e) => STRONG.has(e.kind) && e.weight >= 3)) acc.score *= Math.sqrt(index.kindFactor[id]!);
    }
  }
  // Tests, fixtures, examples, playgrounds, manifests, configs and CI files rank below the sources, unless the title names their role or a path points at one.
  const roles = rolesNamed(issue.title);
  for (const role of scopeRoles) roles.add(role);
  const factor = (id: number): number => (roles.has(fileRole(index.files[id]!)) ? 1 : W.offRole);
  for (const [id, acc] of scores.byFile) if (!acc.evidence.some((e) => e.kind === 'path' || e.kind === 'frame')) acc.score *= factor(id);
  addNeighbours(index, scores, factor);
  if (!options.strongOnly) addCochanges(index, scores, factor);
  const ranked = [...scores.byFile.entries()].sort((a, b) => b[1].score - a[1].score || (index.files[a[0]]! < index.files[b[0]]! ? -1 : 1));
  return ranked.slice(0, options.limit ?? MAX_CANDIDATES).map(([id, acc]) => ({
    path: index.files[id]!,
    confidence: Math.round((1 - Math.exp(-acc.score / SCALE)) * 1000) / 1000,
    evidence: acc.evidence
      .sort((a, b) => b.weight - a.weight || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0))
      .slice(0, 6)
      .map(({ weight: _weight, ...e }) => e),
  }));
}
