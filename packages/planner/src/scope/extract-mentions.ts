/**
 * Reads an issue's text (title and markdown body) and lists what it says about scope — path
 * mentions, lanes, dependencies, parent, acceptance criteria, steps — without looking at any
 * repository. `resolveScope` then checks the mentions against the repository's file list.
 *
 * NOTE: issue bodies are untrusted and may be megabytes long. Everything here is a single pass
 * over lines and whitespace-separated tokens with anchored, non-nested regexes, so the cost stays
 * linear in the size of the text whatever it contains.
 */

export type MentionVia =
  | 'backtick'
  | 'bullet'
  | 'anchor'
  | 'link'
  | 'github-url'
  | 'files-section'
  | 'boundary'
  | 'diff'
  | 'lane-line';

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
  lines: { start: number; end: number } | null;
  /** Explicitly named (backticks, links, sections…) rather than a bare word in a list item. */
  strong: boolean;
  /** Named as something not to touch (an out-of-scope section, "never touch …"). */
  excluded: boolean;
  /** The mention names a directory (trailing slash, a `tree` URL, "files under …"). */
  directory: boolean;
  /** For GitHub URLs: `owner/name` of the repository the URL points into. */
  githubRepo: string | null;
}

export interface RejectedMention {
  raw: string;
  in: 'title' | 'body';
  line: number;
  reason: string;
}

export interface LaneMention {
  name: string;
  line: number;
}

export interface IssueMentions {
  paths: PathMention[];
  rejected: RejectedMention[];
  lanes: LaneMention[];
  dependsOn: number[];
  parent: number | null;
  hasAcceptanceCriteria: boolean;
  steps: number;
}

type Section = 'other' | 'files' | 'out-of-scope' | 'acceptance' | 'dependencies';

const MAX_TOKEN = 1024;

/** Extensions that make a bare word (no slash) a file name rather than `object.property`. */
const FILE_EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonc json5 md mdx markdown txt rst adoc yaml yml toml ini cfg conf xml ' +
    'html htm css scss sass less styl vue svelte astro go mod sum rs py pyi rb java kt kts scala swift c h cc cpp cxx hpp hh ' +
    'cs fs php pl lua sh bash zsh fish ps1 bat sql graphql gql proto prisma tf hcl lock gradle properties ' +
    'csv tsv svg png jpg jpeg gif webp ico wasm snap dockerfile makefile'
  ).split(' '),
);

const NEGATION = /\b(?:never|do\s+not|don't|must\s+not|mustn't|should\s+not|shouldn't|may\s+not|cannot|can't|not)\s+(?:touch|edit|modify|change|alter)\b/i;
const BOUNDARY = /\bedit\s+only\s+(?:the\s+)?(?:files?\s+)?(?:under|in|within|inside|below|beneath)\s+/i;
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

/** Splits `path:12`, `path:12-40`, `path:12:5`, `path#L12-L40` into the path and its lines. */
function splitAnchor(token: string): { path: string; lines: { start: number; end: number } | null } {
  const hash = /^(.*?)#L(\d+)(?:C\d+)?(?:-L?(\d+)(?:C\d+)?)?$/.exec(token);
  if (hash) {
    const start = Number(hash[2]);
    return { path: hash[1]!, lines: { start, end: hash[3] ? Number(hash[3]) : start } };
  }
  const colon = /^(.*?):(\d+)(?:[-–:](\d+))?$/.exec(token);
  if (colon && colon[1]!.length > 0) {
    const start = Number(colon[2]);
    // `file:12:5` is line 12, column 5; `file:12-40` a range.
    const isRange = token.includes('-') || token.includes('–');
    const end = colon[3] && isRange ? Number(colon[3]) : start;
    return { path: colon[1]!, lines: { start, end: Math.max(start, end) } };
  }
  return { path: token, lines: null };
}

const LEADING_JUNK = /^(?:[({<'"*_]|~~)+/;

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n++;
  return n;
}

/** Drops closing brackets that close nothing inside the token (`(see a/b.ts)` → `a/b.ts`; `app/[id]` stays). */
function balance(token: string): string {
  let t = token;
  while ((t.endsWith(')') && count(t, ')') > count(t, '(')) || (t.endsWith(']') && count(t, ']') > count(t, '['))) t = t.slice(0, -1);
  return t;
}

function trimToken(token: string): string {
  let t = balance(token.replace(LEADING_JUNK, '').replace(/(?:["'}>*_,;!?]|~~)+$/, ''));
  // A sentence-ending period or colon, but not `./` or a lone `..`.
  while (t.length > 1 && (t.endsWith('.') || t.endsWith(':')) && !t.endsWith('..')) t = t.slice(0, -1);
  return balance(t.replace(/(?:["'}>*_,;!?]|~~)+$/, ''));
}

export type PathCheck =
  | { kind: 'path'; path: string; directory: boolean }
  | { kind: 'unsafe'; reason: string }
  | { kind: 'not-a-path' };

/**
 * Decides whether a cleaned token names a repository path, and normalises it. Anything that would
 * leave the root — absolute, home-relative, drive letters, `..` segments — is unsafe: it is never
 * resolved or read, only reported.
 */
export function checkPathToken(token: string, strong: boolean): PathCheck {
  if (token.length === 0 || token.length > MAX_TOKEN) return { kind: 'not-a-path' };
  // Control characters, whitespace and shell/glob-ish punctuation are never part of a path we take.
  // Route folders (`app/(group)/[slug]/page.tsx`, `routes/posts.$id.tsx`) keep their brackets and dollars.
  if (/[\u0000-\u001f\u007f\s`|<>"'{}\\^]/.test(token) && !/^[A-Za-z]:\\/.test(token)) return { kind: 'not-a-path' };
  if (/[()$[\]]/.test(token) && !token.includes('/')) return { kind: 'not-a-path' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(token) || token.startsWith('//')) return { kind: 'not-a-path' };
  if (token.startsWith('-') || token.startsWith('#') || token.startsWith('@@')) return { kind: 'not-a-path' };
  if (/^\d+(?:\.\d+)*$/.test(token) || /^v\d+(?:\.\d+)+/.test(token)) return { kind: 'not-a-path' };

  const looksLikePath = token.includes('/') || hasFileExtension(token, strong) || /^\.[\w.-]+$/.test(token);
  if (!looksLikePath) return { kind: 'not-a-path' };
  if (/^[A-Za-z]:[\\/]/.test(token) || token.startsWith('\\\\')) return { kind: 'unsafe', reason: 'absolute path' };
  if (token.startsWith('~')) return { kind: 'unsafe', reason: 'home-relative path' };
  if (token.startsWith('/')) return { kind: 'unsafe', reason: 'absolute path' };
  const directory = token.endsWith('/');
  const segments = token.split('/').filter((s) => s.length > 0 && s !== '.');
  if (segments.some((s) => s === '..')) return { kind: 'unsafe', reason: 'path leaves the repository (..)' };
  if (segments.length === 0) return { kind: 'not-a-path' };
  if (segments.some((s) => /^\.{3,}$/.test(s) || s.includes('*') || s.includes('?'))) return { kind: 'not-a-path' };
  // `@scope/name` alone is a package name, kept (resolution maps it to the package's directory).
  return { kind: 'path', path: segments.join('/'), directory };
}

function hasFileExtension(token: string, strong: boolean): boolean {
  const base = token.slice(token.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) return /^(?:Makefile|Dockerfile|LICENSE|Procfile|Gemfile|Rakefile|Justfile)$/.test(base);
  const ext = base.slice(dot + 1).toLowerCase();
  if (!/^[a-z][a-z0-9]{0,9}$/.test(ext)) return false;
  if (FILE_EXTENSIONS.has(ext)) return true;
  // A slash makes `dir/name.ext` a path whatever the extension; without one, `a.b` is usually code.
  return strong && token.includes('/');
}

interface Context {
  in: 'title' | 'body';
  line: number;
  section: Section;
  negatedFrom: number;
}

/** Parses `https://<host>/<owner>/<repo>/(blob|tree|edit|raw)/<ref…>/<path>` and raw.githubusercontent URLs. */
export function parseGithubFileUrl(url: string): { repo: string; candidates: string[]; directory: boolean; lines: PathMention['lines'] } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  let segments: string[];
  try {
    segments = parsed.pathname.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
  let repo: string;
  let rest: string[];
  let directory = false;
  if (parsed.hostname === 'raw.githubusercontent.com') {
    if (segments.length < 4) return null;
    repo = `${segments[0]}/${segments[1]}`;
    rest = segments.slice(2);
  } else {
    const mode = segments[2];
    if (segments.length < 5 || (mode !== 'blob' && mode !== 'tree' && mode !== 'edit' && mode !== 'raw')) return null;
    repo = `${segments[0]}/${segments[1]}`;
    rest = segments.slice(3);
    directory = mode === 'tree';
  }
  if (rest.some((s) => s.includes('/') || s === '..' || s === '.' || s.includes('\\'))) return null;
  // The ref may itself contain slashes (`feature/x`): offer every split, the one-segment ref first.
  const candidates: string[] = [];
  for (let refLength = 1; refLength < rest.length; refLength++) candidates.push(rest.slice(refLength).join('/'));
  const anchor = splitAnchor(`x${parsed.hash}`);
  return { repo, candidates, directory, lines: parsed.hash ? anchor.lines : null };
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

class MentionCollector {
  readonly paths: PathMention[] = [];
  readonly rejected: RejectedMention[] = [];

  add(raw: string, via: MentionVia, ctx: Context, index: number, strong: boolean, forceDirectory = false): void {
    if (raw.length > MAX_TOKEN + 16) return;
    const cleaned = trimToken(raw);
    const { path, lines } = splitAnchor(cleaned);
    const check = checkPathToken(path, strong || lines !== null);
    if (check.kind === 'not-a-path') return;
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
    });
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
    });
  }
}

function scanLine(line: string, ctx: Context, collector: MentionCollector, isBullet: boolean): void {
  const spans = codeSpans(line);
  for (const span of spans) {
    if (/^https?:\/\//i.test(span.text)) collector.addUrl(span.text, 'backtick', ctx, span.index);
    else if (!/\s/.test(span.text)) collector.add(span.text, ctx.section === 'files' ? 'files-section' : 'backtick', ctx, span.index, true);
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
      collector.add(link.target, 'link', ctx, link.index, true);
    }
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
      collector.add(token, 'files-section', ctx, match.index, true);
      continue;
    }
    const cleaned = trimToken(token);
    if (/:\d+(?:[-–:]\d+)?$|#L\d+/.test(cleaned)) {
      collector.add(token, 'anchor', ctx, match.index, true);
      continue;
    }
    if (isBullet) collector.add(token, 'bullet', ctx, match.index, false);
  }
}

const DEPENDENCY = /\b(?:depends\s+(?:up)?on|blocked\s+(?:by|on)|after|requires|needs)\b\s*:?\s*/gi;
const ISSUE_REF = /^(?:#(\d+)|https?:\/\/[^\s/]+\/([^\s/]+\/[^\s/]+)\/issues\/(\d+)|([\w.-]+\/[\w.-]+)#(\d+))/;
const REF_SEPARATOR = /^(?:\s*(?:,|&|and|or|\+)\s*|\s+)/i;

function issueRefsAt(text: string, start: number, repoSlug: string | null): number[] {
  const refs: number[] = [];
  let rest = text.slice(start);
  for (;;) {
    const ref = ISSUE_REF.exec(rest);
    if (!ref) break;
    if (ref[1]) refs.push(Number(ref[1]));
    else if (ref[2] && (!repoSlug || ref[2].toLowerCase() === repoSlug.toLowerCase())) refs.push(Number(ref[3]));
    else if (ref[4] && repoSlug && ref[4].toLowerCase() === repoSlug.toLowerCase()) refs.push(Number(ref[5]));
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
    while ((dep = DEPENDENCY.exec(line)) !== null) {
      for (const ref of issueRefsAt(line, dep.index + dep[0].length, repoSlug)) dependsOn.add(ref);
    }
    if (section === 'dependencies' && isBullet) {
      const start = line.replace(BULLET, '');
      for (const ref of issueRefsAt(start, 0, repoSlug)) dependsOn.add(ref);
    }
    if (parent === null) {
      const part = /\b(?:part\s+of|parent(?:\s+issue)?\s*:|sub-?issue\s+of)\s*#(\d+)/i.exec(line);
      if (part) parent = Number(part[1]);
    }
  }

  return {
    paths: collector.paths,
    rejected: collector.rejected,
    lanes,
    dependsOn: [...dependsOn].sort((a, b) => a - b),
    parent,
    hasAcceptanceCriteria,
    steps,
  };
}
