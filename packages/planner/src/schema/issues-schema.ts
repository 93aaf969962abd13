import { z } from 'zod';
import type { BacklogIssue } from '../types.js';
import { problemsOf, type Parsed } from './schema-errors.js';

/**
 * Issue text, with its NUL bytes removed. NOTE: a NUL can never reach an agent (an argv string
 * cannot hold one: every run would fail), so it is dropped here, once, for the issues file and
 * GitHub alike. Other control characters are kept as the issue's data: each renderer escapes
 * them where they are shown, and a line break in a body is meaningful.
 */
const IssueText = z.string().transform((text) => text.replaceAll('\u0000', ''));

const LabelSchema = z.union([IssueText, z.object({ name: IssueText })]);

/** Spaces and control characters (C0, C1, line and paragraph separators, bidirectional marks). */
const UNSAFE_IN_URL = /[\s\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

function isIssueUrl(text: string): boolean {
  if (UNSAFE_IN_URL.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * An issue's URL: an http(s) URL without spaces or control characters, or none (`null`, or `""`).
 * NOTE: it goes into the worker prompt outside the quoted body, so a line break in it could pass
 * for the orchestrator's own words: refused at intake, with its path, rather than dropped.
 */
const UrlSchema = IssueText.transform((text) => (text === '' ? null : text)).refine((text) => text === null || isIssueUrl(text), 'expected an http(s) URL without spaces or control characters');

/** `gh` prints OPEN/CLOSED, the REST API open/closed: any case, nothing else. */
const StateSchema = z.string().regex(/^(?:open|closed)$/i, 'expected open or closed (in any case)');

/** A point in time that orders the same everywhere: date, time and zone (`Z` or `±hh:mm`). */
const CreatedAtSchema = z.iso.datetime({ offset: true, message: 'expected an ISO 8601 date and time with its zone, such as 2026-01-31T09:00:00Z' });

/**
 * One item of the issues file: what `gh issue list --json number,title,body,labels,state,createdAt,url`
 * prints, and also the REST shape (`created_at`, `html_url`, `pull_request`). Unknown fields are ignored.
 */
const IssueRecordShape = z.object({
  number: z.number().int().positive(),
  title: IssueText,
  body: IssueText.nullish(),
  labels: z.array(LabelSchema).nullish(),
  state: StateSchema.nullish(),
  createdAt: CreatedAtSchema.nullish(),
  created_at: CreatedAtSchema.nullish(),
  url: UrlSchema.nullish(),
  html_url: UrlSchema.nullish(),
  sortOrder: z.number().nullish(),
  /** Present on pull requests in the REST API: such items are skipped. */
  pull_request: z.unknown().optional(),
  isPullRequest: z.boolean().nullish(),
  /** How many labels the issue carried, when more than `MAX_LABELS` (only so many are read). */
  labelsTotal: z.number().int().nonnegative().optional(),
});

/**
 * An issue as read: past GitHub's 100 labels, only the first 100 are validated and kept (seven
 * million labels in one 28 MB answer took 2.7 GB to validate, item by item, several times);
 * unknown fields are dropped, never copied.
 */
export const IssueRecordSchema = z.preprocess((value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const labels = (value as { labels?: unknown }).labels;
  if (!Array.isArray(labels) || labels.length <= MAX_LABELS) return value;
  return { ...(value as object), labels: labels.slice(0, MAX_LABELS), labelsTotal: labels.length };
}, IssueRecordShape);

export const IssuesFileSchema = z.array(IssueRecordSchema);

export type IssueRecord = z.output<typeof IssueRecordSchema>;

/**
 * The longest title and body an issue may bring: GitHub's own limits (256 characters for a title,
 * 65,536 for a body). Longer text — an issues file, or a server that is not GitHub — is cut there,
 * with a warning naming the issue: a title of 300,000 characters made `git commit -m` fail with
 * E2BIG at harvest (red team 2, #11), and the prompt carries the whole body as one argument.
 */
export const MAX_TITLE_CHARS = 256;
export const MAX_BODY_CHARS = 65_536;
/** GitHub's limits for labels: 100 on an issue, 50 characters a name (a file of a million labels took 660 MB and wrote 120 MB of warnings). */
export const MAX_LABELS = 100;
export const MAX_LABEL_CHARS = 50;

/**
 * `text` cut to at most `max` characters (code points), the last of them an ellipsis when cut:
 * never inside a surrogate pair, nor between a character and the combining marks that follow it.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let points = 0;
  for (const _ of text) if (++points > max) break;
  if (points <= max) return text;
  // 2·max + 64 code units hold more than max code points: the rest is never looked at.
  const chars = Array.from(text.slice(0, 2 * max + 64));
  let keep = Math.max(0, max - 1);
  // Back off to the start of the character the cut falls in: before its combining marks,
  // variation selectors, skin-tone modifiers and zero-width joiners (ICU's segmenter would say
  // the same, but slows down with the text's length: a 1 MB body took minutes).
  while (keep > 0 && (JOINS_PREVIOUS.test(chars[keep]!) || chars[keep - 1] === '\u200d')) keep--;
  // A flag is two regional indicators: never keep one alone.
  let indicators = 0;
  while (keep - indicators > 0 && REGIONAL_INDICATOR.test(chars[keep - indicators - 1]!)) indicators++;
  if (indicators % 2 === 1) keep--;
  return `${chars.slice(0, keep).join('')}…`;
}

/** What belongs to the character before it: marks, variation selectors, skin tones, tags. */
const JOINS_PREVIOUS = /^[\p{M}\u200d\ufe00-\ufe0f\u{1f3fb}-\u{1f3ff}\u{e0020}-\u{e007f}]$/u;
const REGIONAL_INDICATOR = /^[\u{1f1e6}-\u{1f1ff}]$/u;

function toBacklogIssue(record: IssueRecord, notes: string[]): BacklogIssue {
  const state = (record.state ?? 'open').toLowerCase() === 'closed' ? 'closed' : 'open';
  const title = cutText(record.title, MAX_TITLE_CHARS);
  const body = cutText(record.body ?? '', MAX_BODY_CHARS);
  const names = (record.labels ?? []).map((label) => (typeof label === 'string' ? label : label.name));
  const labels = names.slice(0, MAX_LABELS).map((name) => cutText(name, MAX_LABEL_CHARS));
  const cut = [
    title !== record.title ? `title to ${MAX_TITLE_CHARS} characters` : '',
    body !== (record.body ?? '') ? `body to ${MAX_BODY_CHARS} characters` : '',
    (record.labelsTotal ?? names.length) > MAX_LABELS ? `labels to ${MAX_LABELS} of ${record.labelsTotal ?? names.length}` : '',
    labels.some((name, i) => name !== names[i]) ? `label names to ${MAX_LABEL_CHARS} characters` : '',
  ].filter(Boolean);
  if (cut.length > 0) notes.push(`issue #${record.number}: ${cut.join(' and ')} cut (GitHub's limits)`);
  return {
    number: record.number,
    title,
    body,
    labels,
    state,
    createdAt: record.createdAt ?? record.created_at ?? null,
    url: record.url ?? record.html_url ?? null,
    sortOrder: record.sortOrder ?? null,
  };
}

/** True for items that are pull requests rather than issues (the REST API lists both). */
export function isPullRequest(record: IssueRecord): boolean {
  return (record.pull_request !== undefined && record.pull_request !== null) || record.isPullRequest === true;
}

/**
 * Validates an issues file (already parsed from JSON) and turns it into backlog issues,
 * skipping pull requests. Problems come back as data, each with its JSON path.
 */
export function parseIssues(data: unknown): Parsed<BacklogIssue[]> {
  const result = IssuesFileSchema.safeParse(data);
  if (!result.success) return { ok: false, value: undefined, problems: problemsOf(result.error) };
  const seen = new Map<number, number>();
  const problems = [];
  for (const [index, record] of result.data.entries()) {
    const first = seen.get(record.number);
    if (first !== undefined && !isPullRequest(record)) {
      problems.push({ path: `$[${index}].number`, message: `issue #${record.number} appears twice (also at $[${first}])` });
    }
    if (!isPullRequest(record)) seen.set(record.number, index);
  }
  if (problems.length > 0) return { ok: false, value: undefined, problems };
  const notes: string[] = [];
  const value = result.data.filter((record) => !isPullRequest(record)).map((record) => toBacklogIssue(record, notes));
  return { ok: true, value, problems: [], ...(notes.length > 0 ? { notes } : {}) };
}
