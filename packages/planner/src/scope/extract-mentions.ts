/**
 * Reads an issue's text (title and markdown body) and lists what it says about scope — path
 * mentions, lanes, dependencies, parent, acceptance criteria, steps — without looking at any
 * repository. `resolveScope` then checks the mentions against the repository's file list.
 *
 * NOTE: issue bodies are untrusted and may be megabytes long. Everything here is a single pass
 * over lines and whitespace-separated tokens with anchored, non-nested regexes, so the cost stays
 * linear in the size of the text whatever it contains.
 */
import { parseGithubFileUrl } from './github-file-url.js';
import { checkPathToken, looksLikeFilePath, MAX_TOKEN, splitAnchor, trimToken, type LineRange } from './path-token.js';

export type MentionVia =
  | 'backtick'
  | 'bullet'
  | 'prose'
  | 'anchor'
  | 'link'
  | 'github-url'
  | 'files-section'
  | 'boundary'
  | 'diff'
  | 'lane-line'
  | 'root-phrase';

export interface PathMention {
  /** The text as written (a token, a URL, a link target). */
  raw: string;
  /** Candidate repository paths, most likely first (several only for URLs whose ref may contain slashes). */
  candidates: string[];
  via: MentionVia;
  /** Where it was found: `title` or the body. */
  in: 'title' | 'body';
  /** 1-based line of the body (0 for the title). */
  line: number;
  /** Line range of an anchor such as `src/x.ts:12-40` or `#L12-L40`. */
  lines: LineRange | null;
  /** Explicitly named (backticks, links, sections…) rather than a bare word in a list item. */
  strong: boolean;
  /** Named as something not to touch (an out-of-scope section, "never touch …"). */
  excluded: boolean;
  /** The mention names a directory (trailing slash, a `tree` URL, "files under …"). */
  directory: boolean;
  /** For GitHub URLs: `owner/name` of the repository the URL points into. */
  githubRepo: string | null;
  /** The change the text marks it with, right after it: `(edit)`, `(create)`, `(delete)` (and their synonyms), else null. */
  change: MarkedChange | null;
}

export type MarkedChange = 'edit' | 'create' | 'delete';

/** `(edit)`, `(new)`, `(deleted)`… right after a path, as a Files list marks each file. */
const CHANGE_MARK = /^\s*\((edit(?:ed)?|modif(?:y|ied)|change[ds]?|create[ds]?|new|add(?:ed|s)?|delete[ds]?|remove[ds]?)\)/i;

/** How much text after a path may hold its mark (bounded, so that a long line stays linear). */
const MARK_WINDOW = 24;

function markedChange(after: string): MarkedChange | null {
  const mark = CHANGE_MARK.exec(after);
  if (!mark) return null;
  const word = mark[1]!.toLowerCase();
  if (/^(?:create|new|add)/.test(word)) return 'create';
  if (/^(?:delete|remove)/.test(word)) return 'delete';
  return 'edit';
}

export interface RejectedMention {
  raw: string;
  in: 'title' | 'body';
  line: number;
  reason: string;
}

/**
 * The repository root itself, named as a path (`./`, `/`, `.` in code or a link) or in words
 * ("files at the root", "root files", "top-level files"): it stands for the root's own files.
 */
export interface RootMention {
  raw: string;
  via: MentionVia;
  in: 'title' | 'body';
  line: number;
  excluded: boolean;
}

export interface LaneMention {
  name: string;
  line: number;
}

export interface IssueMentions {
  paths: PathMention[];
  rejected: RejectedMention[];
  roots: RootMention[];
  lanes: LaneMention[];
  dependsOn: number[];
  parent: number | null;
  hasAcceptanceCriteria: boolean;
  steps: number;
}

type Section = 'other' | 'files' | 'out-of-scope' | 'acceptance' | 'dependencies';

const NEGATION = /\b(?:never|do\s+not|don't|must\s+not|mustn't|should\s+not|shouldn't|may\s+not|cannot|can't|not)\s+(?:touch|edit|modify|change|alter)\b/i;
const BOUNDARY = /\bedit\s+only\s+(?:the\s+)?(?:files?\s+)?(?:under|in|within|inside|below|beneath)\s+/i;
/** "files at the root", "root files", "top-level files": the root's own files, in words. */
const ROOT_PHRASE = /\b(?:(?:root|top[- ]level|root[- ]level)\s+files|files\s+(?:at|in)\s+the\s+(?:(?:repository|repo|project)\s+)?(?:root|top[- ]level))\b/gi;
const ATX_HEADING = /^\s{0,3}#{1,6}(?:\s|$)/;
const EMPHASIS_HEADING = /^\s{0,3}(?:\*\*([^*]{1,200})\*\*|__([^_]{1,200})__):?\s*$/;

/** The text of a heading line (`## Files`, `**Files**`), or null. Written without backtracking regexes. */
function headingText(line: string): string | null {
  const atx = ATX_HEADING.exec(line);
  if (atx) {
    let text = line.slice(atx[0].length).trim();
    while (text.endsWith('#')) text = text.slice(0, -1);
    return text.trim();
  }
  const emphasis = line.length <= 210 ? EMPHASIS_HEADING.exec(line) : null;
  return emphasis ? (emphasis[1] ?? emphasis[2] ?? '').trim() : null;
}
const LABEL_LINE = /^\s{0,3}(?:\*\*|__)?([A-Za-z][A-Za-z /&'-]{1,40}?)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*(.*)$/;
const BULLET = /^\s*(?:[-*+]|\d{1,4}[.)])\s+(?:\[[ xX]\]\s+)?/;
const CHECKBOX = /^\s*(?:[-*+]|\d{1,4}[.)])\s+\[[ xX]\]\s/;
const NUMBERED = /^\s*\d{1,4}[.)]\s+\S/;
const FENCE = /^\s{0,3}(```+|~~~+)/;

function classifySection(title: string): Section {
  const t = title.toLowerCase();
  if (/out[\s-]+of[\s-]+scope|non[\s-]?goals?|not\s+in\s+scope|do\s+not\s+(?:touch|edit|change)|don't\s+(?:touch|edit|change)|never\s+touch|excluded|must\s+not\s+(?:touch|edit)/.test(t))
    return 'out-of-scope';
  if (/acceptance|done\s+when|definition\s+of\s+done|success\s+criteria/.test(t)) return 'acceptance';
  if (/^(?:depends\s+on|dependencies|blocked\s+by|prerequisites?|requires)\b/.test(t)) return 'dependencies';
  if (/\b(?:files?|paths?|touch(?:es|ed)?|boundar(?:y|ies)|fence|scope|where)\b/.test(t) && !/\btests?\s+plan\b/.test(t)) return 'files';
  return 'other';
}

interface Context {
  in: 'title' | 'body';
  line: number;
  section: Section;
  negatedFrom: number;
}

/** Finds `` `inline code` `` spans of one line (single or double backticks), with their positions. */
function codeSpans(line: string): { text: string; index: number; end: number }[] {
  const spans: { text: string; index: number; end: number }[] = [];
  let i = 0;
  while (i < line.length) {
    const open = line.indexOf('`', i);
    if (open < 0) break;
    let ticks = 1;
    while (line[open + ticks] === '`') ticks++;
    const fence = '`'.repeat(ticks);
    const close = line.indexOf(fence, open + ticks);
    if (close < 0) break;
    spans.push({ text: line.slice(open + ticks, close).trim(), index: open, end: close + ticks });
    i = close + ticks;
  }
  return spans;
}

/** Markdown link targets `[text](target)` of one line. */
function linkTargets(line: string): { target: string; index: number }[] {
  const out: { target: string; index: number }[] = [];
  let i = 0;
  while (i < line.length) {
    const at = line.indexOf('](', i);
    if (at < 0) break;
    const close = line.indexOf(')', at + 2);
    if (close < 0) break;
    const inner = line.slice(at + 2, close).trim();
    const target = inner.split(/\s+/)[0] ?? '';
    if (target.length > 0) out.push({ target: target.replace(/^<|>$/g, ''), index: at });
    i = close + 1;
  }
  return out;
}

/** A name a path segment may have (route folders keep their brackets and dollars). */
const SEGMENT = /^[\w.@$()[\]~-]+$/;

/**
 * `packages\core\src\cart.ts` → `packages/core/src/cart.ts`: backslashes as separators, when the
 * text reads as a path — every segment a name, at least two of them (or one and a trailing `\`,
 * `docs\`) and not all one letter, so that `\n`, `\d+\.\d+` and `a\b` stay code. A leading `\`, a drive letter or `..` stay what
 * they are (checkPathToken refuses them); `\\server\share` comes back as `//server/share`.
 * Null when it is not such a path.
 */
function windowsPath(text: string): string | null {
  if (!text.includes('\\') || text.includes('/')) return null;
  if (text.startsWith('\\\\')) return `//${text.slice(2).replace(/\\/g, '/')}`;
  const slashed = text.replace(/\\/g, '/');
  const segments = splitAnchor(slashed).path.split('/');
  const named = segments.filter((segment, i) => !(segment === '' && (i === 0 || i === segments.length - 1)) && !(i === 0 && /^[A-Za-z]:$/.test(segment)));
  const directory = segments.length > 1 && segments.at(-1) === '';
  if ((named.length < 2 && !directory) || named.length === 0 || named.every((segment) => segment.length === 1)) return null;
  return named.every((segment) => SEGMENT.test(segment)) ? slashed : null;
}

class MentionCollector {
  readonly paths: PathMention[] = [];
  readonly rejected: RejectedMention[] = [];
  readonly roots: RootMention[] = [];

  /** `quoted`: the token is a whole code span or link target, not a word of prose; `after`: the text that follows it on its line. */
  add(raw: string, via: MentionVia, ctx: Context, index: number, strong: boolean, forceDirectory = false, quoted = false, after = ''): void {
    if (raw.length > MAX_TOKEN + 16) return;
    const cleaned = trimToken(raw);
    // A Windows path in a code span (`packages\core\src\cart.ts`) names the same file; reported as written.
    const slashed = quoted ? windowsPath(cleaned) : null;
    if (slashed?.startsWith('//')) {
      this.rejected.push({ raw: cleaned, in: ctx.in, line: ctx.line, reason: 'absolute path' });
      return;
    }
    const { path, lines } = splitAnchor(slashed ?? cleaned);
    const check = checkPathToken(path, strong || lines !== null);
    if (check.kind === 'not-a-path') return;
    if (check.kind === 'root') {
      // A lone `/` between words is punctuation ("input / output"); quoted, or `./` in a Files
      // section, it names the root.
      if (quoted || (strong && cleaned !== '/')) this.addRoot(cleaned, via, ctx, index);
      return;
    }
    if (check.kind === 'unsafe') {
      this.rejected.push({ raw: cleaned, in: ctx.in, line: ctx.line, reason: check.reason });
      return;
    }
    this.paths.push({
      raw: cleaned,
      candidates: [check.path],
      via,
      in: ctx.in,
      line: ctx.line,
      lines,
      strong: strong || lines !== null,
      excluded: ctx.section === 'out-of-scope' || index >= ctx.negatedFrom,
      directory: check.directory || forceDirectory,
      githubRepo: null,
      change: markedChange(after),
    });
  }

  addRoot(raw: string, via: MentionVia, ctx: Context, index: number): void {
    this.roots.push({ raw, via, in: ctx.in, line: ctx.line, excluded: ctx.section === 'out-of-scope' || index >= ctx.negatedFrom });
  }

  addUrl(url: string, via: MentionVia, ctx: Context, index: number): void {
    if (url.length > 4 * MAX_TOKEN) return;
    const parsed = parseGithubFileUrl(url);
    if (!parsed || parsed.candidates.length === 0) return;
    this.paths.push({
      raw: url,
      candidates: parsed.candidates,
      via,
      in: ctx.in,
      line: ctx.line,
      lines: parsed.lines,
      strong: true,
      excluded: ctx.section === 'out-of-scope' || index >= ctx.negatedFrom,
      directory: parsed.directory,
      githubRepo: parsed.repo,
      change: null,
    });
  }
}

const ROOT_TOKENS = new Set(['.', './', '/']);
/** A code span of signs only (`:`, `#`, `?`, `&`), not itself a way of naming the root. */
const SIGNS = /^[^\p{L}\p{N}\s]{1,3}$/u;
const CHARACTER_AFTER = /^\s*(?:characters?|chars?|separators?|delimiters?|signs?|symbols?|dots?|periods?|slash(?:es)?|prefix(?:es)?|suffix(?:es)?)\b/i;

/**
 * Whether a lone `.`, `./` or `/` in a code span of prose is a character, not the repository
 * root: listed with other signs (`` `/`, `:`, `.` and `#` ``), written as "a `.`", or followed by
 * "character", "separator", "prefix"… A report quoting the characters a function mishandles names
 * no root files.
 */
function isCharacterSpan(line: string, span: { text: string; index: number; end: number }, listsSigns: boolean): boolean {
  if (listsSigns) return true;
  if (/\b(?:an?|one|any|each|every)\s*$/i.test(line.slice(Math.max(0, span.index - 8), span.index))) return true;
  return CHARACTER_AFTER.test(line.slice(span.end, span.end + 24));
}

function scanLine(line: string, ctx: Context, collector: MentionCollector, isBullet: boolean): void {
  const spans = codeSpans(line);
  const listsSigns = spans.some((span) => !ROOT_TOKENS.has(span.text) && SIGNS.test(span.text));
  for (const span of spans) {
    if (/^https?:\/\//i.test(span.text)) collector.addUrl(span.text, 'backtick', ctx, span.index);
    else if (ROOT_TOKENS.has(span.text) && ctx.section !== 'files' && isCharacterSpan(line, span, listsSigns)) continue;
    else if (!/\s/.test(span.text)) collector.add(span.text, ctx.section === 'files' ? 'files-section' : 'backtick', ctx, span.index, true, false, true, line.slice(span.end, span.end + MARK_WINDOW));
  }
  // Text outside code spans, for links, URLs, anchors and bare list items.
  let outside = '';
  let from = 0;
  for (const span of spans) {
    outside += line.slice(from, span.index) + ' '.repeat(span.end - span.index);
    from = span.end;
  }
  outside += line.slice(from);
  for (const link of linkTargets(outside)) {
    if (/^https?:\/\//i.test(link.target)) collector.addUrl(link.target, 'link', ctx, link.index);
    else if (!link.target.startsWith('#') && !/^[a-z][a-z0-9+.-]*:/i.test(link.target)) {
      collector.add(link.target, 'link', ctx, link.index, true, false, true);
    }
  }
  ROOT_PHRASE.lastIndex = 0;
  for (let phrase = ROOT_PHRASE.exec(outside); phrase !== null; phrase = ROOT_PHRASE.exec(outside)) {
    collector.addRoot(phrase[0].replace(/\s+/g, ' '), 'root-phrase', ctx, phrase.index);
  }
  const boundary = BOUNDARY.exec(outside);
  const boundaryAt = boundary ? boundary.index + boundary[0].length : -1;

  const tokenRe = /\S+/g;
  let match: RegExpExecArray | null;
  while ((match = tokenRe.exec(outside)) !== null) {
    const token = match[0];
    if (token.length > MAX_TOKEN) continue;
    if (/^[(<]?https?:\/\//i.test(token)) {
      const url = token.replace(/^[(<]+/, '').replace(/[)>.,;!?]+$/, '');
      if (!outside.slice(Math.max(0, match.index - 2), match.index).endsWith('](')) collector.addUrl(url, 'github-url', ctx, match.index);
      continue;
    }
    if (token.includes('](')) continue; // the link itself was handled above
    if (match.index === boundaryAt) {
      collector.add(token, 'boundary', ctx, match.index, true, true);
      continue;
    }
    if (ctx.section === 'files') {
      collector.add(token, 'files-section', ctx, match.index, true, false, false, outside.slice(match.index + token.length, match.index + token.length + MARK_WINDOW));
      continue;
    }
    const cleaned = trimToken(token);
    if (/:\d+(?:[-–:]\d+)?$|#L\d+/.test(cleaned)) {
      collector.add(token, 'anchor', ctx, match.index, true);
      continue;
    }
    if (isBullet) collector.add(token, 'bullet', ctx, match.index, false, false, false, outside.slice(match.index + token.length, match.index + token.length + MARK_WINDOW));
    // A path written in a sentence ("Edit packages/api/src/x.ts."): weak, so only a file the
    // repository has counts.
    else if (looksLikeFilePath(splitAnchor(cleaned).path)) collector.add(token, 'prose', ctx, match.index, false, false, false, outside.slice(match.index + token.length, match.index + token.length + MARK_WINDOW));
  }
}

const DEPENDENCY = /\b(?:depends\s+(?:up)?on|blocked\s+(?:by|on)|after|requires|needs)\b\s*:?\s*/gi;
const ISSUE_REF = /^(?:#(\d+)|https?:\/\/[^\s/]+\/([^\s/]+\/[^\s/]+)\/issues\/(\d+)|([\w.-]+\/[\w.-]+)#(\d+))/;
const REF_SEPARATOR = /^(?:\s*(?:,|&|and|or|\+)\s*|\s+)/i;

/** The most dependencies one issue names (GitHub's tracked-by relations are far fewer): more are not looked up. */
export const MAX_DEPENDENCIES = 50;
/** How far past a keyword its references are read: a list of MAX_DEPENDENCIES short references fits. */
const REF_WINDOW = 2_000;

/** An issue number: a positive safe integer (`#0`, `#99999999999999999999` name no issue). */
function issueNumber(digits: string | undefined): number | null {
  if (digits === undefined || digits.length > 15) return null;
  const n = Number(digits);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function issueRefsAt(text: string, start: number, repoSlug: string | null): number[] {
  const refs: number[] = [];
  // A window, never the rest of the line: each match below is then bounded, and `after.after.…`
  // (a keyword at every word of a 65,536-character line) costs a window per word, not the line.
  let rest = text.slice(start, start + REF_WINDOW);
  while (refs.length < MAX_DEPENDENCIES) {
    const ref = ISSUE_REF.exec(rest.slice(0, 300));
    if (!ref) break;
    const n = ref[1] ? issueNumber(ref[1]) : ref[2] && (!repoSlug || ref[2].toLowerCase() === repoSlug.toLowerCase()) ? issueNumber(ref[3]) : ref[4] && repoSlug && ref[4].toLowerCase() === repoSlug.toLowerCase() ? issueNumber(ref[5]) : null;
    if (n !== null) refs.push(n);
    rest = rest.slice(ref[0].length);
    const sep = REF_SEPARATOR.exec(rest);
    if (!sep) break;
    rest = rest.slice(sep[0].length);
  }
  return refs;
}

export interface ExtractOptions {
  repoSlug?: string | null;
}

/** Lists the scope mentions of an issue's title and body. Pure and linear in the text size. */
export function extractMentions(title: string, body: string, options: ExtractOptions = {}): IssueMentions {
  const collector = new MentionCollector();
  const lanes: LaneMention[] = [];
  const dependsOn = new Set<number>();
  let parent: number | null = null;
  let hasAcceptanceCriteria = false;
  let steps = 0;
  const repoSlug = options.repoSlug ?? null;

  // The title: code spans and anchors only.
  scanLine(title, { in: 'title', line: 0, section: 'other', negatedFrom: Number.POSITIVE_INFINITY }, collector, false);

  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  let section: Section = 'other';
  let fence: string | null = null;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    const lineNo = n + 1;
    const fenceMatch = FENCE.exec(line);
    if (fence !== null) {
      if (fenceMatch && fenceMatch[1]!.startsWith(fence[0]!) && fenceMatch[1]!.length >= fence.length) fence = null;
      else {
        // Inside code, only diff headers name files.
        const diff = /^(?:\+\+\+|---) [ab]\/(\S+)\s*$/.exec(line) ?? /^diff --git a\/(\S+) b\/\S+/.exec(line);
        if (diff) collector.add(diff[1]!, 'diff', { in: 'body', line: lineNo, section, negatedFrom: Number.POSITIVE_INFINITY }, 0, true);
      }
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1]!;
      continue;
    }
    if (line.length > 200_000) continue; // a single line that long is data, not prose

    const heading = headingText(line);
    if (heading !== null) {
      const text = heading.replace(/[*_`:]/g, '').trim();
      section = classifySection(text);
      if (section === 'acceptance') hasAcceptanceCriteria = true;
    }
    let lineSection = section;
    const labelLine = heading !== null ? null : LABEL_LINE.exec(line);
    if (labelLine && labelLine[2]!.length > 0) {
      const label = labelLine[1]!.trim();
      const kind = classifySection(label);
      if (/^lanes?$/i.test(label)) {
        for (const name of labelLine[2]!.split(/[,\s]+/)) {
          const clean = name.replace(/[`*_]/g, '').replace(/[.;]+$/, '');
          if (/^[\w@./-]+$/.test(clean)) lanes.push({ name: clean, line: lineNo });
        }
      }
      if (kind === 'acceptance') hasAcceptanceCriteria = true;
      if (kind === 'files' || kind === 'out-of-scope') lineSection = kind;
    } else if (labelLine && classifySection(labelLine[1]!.trim()) === 'acceptance') {
      hasAcceptanceCriteria = true;
    }

    if (CHECKBOX.test(line) || NUMBERED.test(line)) steps++;
    const isBullet = BULLET.test(line);

    const negation = NEGATION.exec(line);
    const ctx: Context = {
      in: 'body',
      line: lineNo,
      section: lineSection,
      negatedFrom: negation ? negation.index : Number.POSITIVE_INFINITY,
    };
    if (heading === null) scanLine(line, ctx, collector, isBullet);

    // Dependencies and parent.
    DEPENDENCY.lastIndex = 0;
    let dep: RegExpExecArray | null;
    while (dependsOn.size < MAX_DEPENDENCIES && (dep = DEPENDENCY.exec(line)) !== null) {
      for (const ref of issueRefsAt(line, dep.index + dep[0].length, repoSlug)) if (dependsOn.size < MAX_DEPENDENCIES) dependsOn.add(ref);
    }
    if (section === 'dependencies' && isBullet && dependsOn.size < MAX_DEPENDENCIES) {
      const start = line.replace(BULLET, '');
      for (const ref of issueRefsAt(start, 0, repoSlug)) if (dependsOn.size < MAX_DEPENDENCIES) dependsOn.add(ref);
    }
    if (parent === null) {
      const part = /\b(?:part\s+of|parent(?:\s+issue)?\s*:|sub-?issue\s+of)\s*#(\d+)/i.exec(line);
      if (part) parent = issueNumber(part[1]);
    }
  }

  return {
    paths: collector.paths,
    rejected: collector.rejected,
    roots: collector.roots,
    lanes,
    dependsOn: [...dependsOn].sort((a, b) => a - b),
    parent,
    hasAcceptanceCriteria,
    steps,
  };
}
