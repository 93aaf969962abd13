/**
 * Issue source: a JSON file as `gh issue list --json number,title,body,labels,state,createdAt,url`
 * prints it, or standard input with `-`.
 */
import path from 'node:path';
import { parseIssues, parseJsonText, readRegularFile, type BacklogIssue } from '@waves/planner';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { readUserFile } from '../read-user-file.js';

/** The largest issues file a config may name (a thousand long issues take a few megabytes). */
export const MAX_ISSUES_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Reads the backlog. `shown`: the file as messages name it. A file the config names
 * (`defaults.fromIssues`, `fromConfig`) must be a regular file of a bounded size — a clone could
 * put a FIFO there; one named with `--from-issues` is the user's (a pipe such as `<(gh …)` is fine).
 */
export async function readIssuesFile(file: string, io: CliIo, options: { fromConfig?: boolean; shown?: string } = {}): Promise<BacklogIssue[]> {
  const name = file === '-' ? 'standard input' : `issues file ${options.shown ?? file}`;
  let text: string;
  if (file === '-') text = await io.readStdin();
  else if (options.fromConfig) {
    const read = await readRegularFile(path.resolve(io.cwd, file), { maxBytes: MAX_ISSUES_FILE_BYTES, followLinks: true });
    if (!read.ok) throw new UsageError(`${name}: ${read.reason}`);
    text = read.text;
  } else {
    // The user's file: a pipe is fine, a device or a file past the limit is not (read-user-file.ts).
    const read = await readUserFile(path.resolve(io.cwd, file), MAX_ISSUES_FILE_BYTES);
    if (!read.ok) throw new UsageError(`${name}: ${read.reason}`);
    text = read.text;
  }
  // The position only: the file may be anything (`--from-issues /etc/shadow`), never quote it.
  const json = parseJsonText(text);
  if (!json.ok) throw new UsageError(`${name}: not valid JSON (${json.message})`);
  const parsed = parseIssues(json.value);
  if (!parsed.ok) {
    const [first, ...rest] = parsed.problems;
    const more = rest.length > 0 ? ` (and ${rest.length} more problem(s))` : '';
    throw new UsageError(`${name}: ${first!.path}: ${first!.message}${more}`);
  }
  for (const note of parsed.notes ?? []) io.stderr(`waves: ${name}: ${note}\n`);
  return parsed.value;
}
