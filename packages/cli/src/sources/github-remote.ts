/**
 * Which GitHub repository a clone's origin names — without loading the GitHub client, so that a
 * plan from an issues file never pays for it.
 */
/** `owner/name` from an origin URL (https, ssh or scp-like), or null when it is not GitHub's. */
export function repoFromRemote(url: string, anyHost = false): string | null {
  const trimmed = url.trim();
  const match =
    /^(?:https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(trimmed) ??
    /^(?:[^@/]+@)?([^:/]+):([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(trimmed);
  if (!match) return null;
  const [, host, owner, name] = match;
  if (!anyHost && host!.toLowerCase() !== 'github.com') return null;
  return `${owner}/${name}`;
}
