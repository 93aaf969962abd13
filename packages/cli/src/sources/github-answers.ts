/**
 * What GitHub answers, checked before anything reads it. A proxy's HTML login page, or a server
 * that is not GitHub, must end the command with one line naming the host, the endpoint and what
 * was wrong — never with a TypeError from deep in octokit's pagination, and never with the body
 * (it may hold anything, from a stack trace to someone's session).
 *
 * Two checks: every successful answer must be JSON, a list for the list endpoints waves reads
 * and an object for a single issue (an `after` hook, so that pagination never sees anything
 * else); then the fields waves reads are validated by zod where each answer is used.
 */
import type { Octokit } from 'octokit';
import { z } from 'zod';
import { IssueRecordSchema, IssuesFileSchema, jsonPath, WavesError } from '@waves/planner';

/** `GET /repos/o/r/labels`: the method and the path, without the query or the host. */
export function endpointOf(method: string | undefined, url: string | undefined): string {
  const pathOnly = (url ?? '').replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/[?#].*$/, '');
  return `${method ?? 'GET'} ${pathOnly}`;
}

/** A single issue (`/issues/{issue_number}`, or its number filled in) is an object; the rest are lists. */
function expectsObject(url: string): boolean {
  return /\/issues\/(?:\d+|\{issue_number\})$/.test(url.replace(/[?#].*$/, ''));
}

/** The most items a list page may hold: waves always asks for 100 (`per_page`, GitHub's maximum). */
export const MAX_PAGE_ITEMS = 100;

/** Installs the JSON check on every answer of this client. */
export function checkAnswers(octokit: Octokit, host: string): void {
  octokit.hook.after('request', (response, options) => {
    if (response.status === 204 || response.status === 205) return;
    const url = String(options.url ?? '');
    const endpoint = endpointOf(String(options.method ?? 'GET'), url);
    const type = String(response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    // The content type is the server's text: shown only when it looks like one.
    const shownType = type === '' ? 'no content type' : /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : 'an unreadable content type';
    if (!/^application\/(?:[\w.+-]+\+)?json$/.test(type)) throw new WavesError(`GitHub API at ${host}: ${endpoint} answered ${shownType}, not JSON; is it a GitHub API?`);
    const data: unknown = response.data;
    if (typeof data !== 'object' || data === null) throw new WavesError(`GitHub API at ${host}: ${endpoint} answered JSON that does not parse, or is not an object or a list`);
    // A page holds at most what was asked (`per_page`, 100): more is a server that is not GitHub,
    // and two million items would take gigabytes to validate.
    if (Array.isArray(data) && data.length > MAX_PAGE_ITEMS) {
      throw new WavesError(`GitHub API at ${host}: ${endpoint} answered ${data.length} items where at most ${MAX_PAGE_ITEMS} were asked; is it a GitHub API?`);
    }
    const object = expectsObject(url);
    if (Array.isArray(data) === object) {
      throw new WavesError(`GitHub API at ${host}: ${endpoint} answered ${Array.isArray(data) ? 'a list' : 'an object'} where ${object ? 'an object' : 'a list'} was expected; is it a GitHub API?`);
    }
  });
}

const LabelsPage = z.array(z.looseObject({ name: z.string() }));
const MilestonesPage = z.array(z.looseObject({ number: z.number().int(), title: z.string() }));

/** Validates one answer against the schema of its endpoint: the first problem, with its JSON path. */
function readAnswer<S extends z.ZodType>(schema: S, data: unknown, host: string, endpoint: string): z.output<S> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const problem = parsed.error.issues[0]!;
  throw new WavesError(`GitHub API at ${host}: ${endpoint} answered something waves cannot read: ${jsonPath(problem.path)}: ${problem.message}`);
}

export const readLabels = (data: unknown, host: string, endpoint: string) => readAnswer(LabelsPage, data, host, endpoint);
export const readMilestones = (data: unknown, host: string, endpoint: string) => readAnswer(MilestonesPage, data, host, endpoint);
/** A page of issues, pull requests among them: each read as an item of an issues file is. */
export const readIssuesPage = (data: unknown, host: string, endpoint: string) => readAnswer(IssuesFileSchema, data, host, endpoint);
export const readIssue = (data: unknown, host: string, endpoint: string) => readAnswer(IssueRecordSchema, data, host, endpoint);
