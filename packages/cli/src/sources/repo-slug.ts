/**
 * A GitHub repository named `owner/name`. Each part is letters, digits, `_`, `.` and `-`, and
 * neither may be only dots: octokit puts the two in the request path as they are, and a URL
 * resolves `..` and `.`, so `../x` would read `/x/labels` — another endpoint, or another host's
 * path under a GitHub Enterprise prefix.
 */
export const REPO_SLUG = /^(?!\.+\/)[\w.-]+\/(?!\.+$)[\w.-]+$/;

export const REPO_SLUG_HINT = 'expected owner/name (letters, digits, _ . -; no part only dots)';

export function isRepoSlug(text: string): boolean {
  return REPO_SLUG.test(text);
}

/** `owner` and `name` of a slug that passed `isRepoSlug`. */
export function splitRepoSlug(slug: string): { owner: string; name: string } {
  const at = slug.indexOf('/');
  return { owner: slug.slice(0, at), name: slug.slice(at + 1) };
}
