import type { BacklogIssue } from '../types.js';

/**
 * The `owner/name` of the repository the backlog belongs to, when every issue URL that names a
 * GitHub repository names the same one; else null. Lets links to files of *other* repositories
 * be told apart from links into this one.
 */
export function inferRepoSlug(issues: readonly BacklogIssue[]): string | null {
  let slug: string | null = null;
  for (const issue of issues) {
    if (!issue.url) continue;
    const match = /^https?:\/\/[^/]+\/([^/\s]+\/[^/\s]+)\/(?:issues|pull)\/\d+/.exec(issue.url);
    if (!match) continue;
    const found = match[1]!.toLowerCase();
    if (slug === null) slug = found;
    else if (slug !== found) return null;
  }
  return slug;
}
