/**
 * GitHub links to files and folders (`…/blob/<ref>/<path>#L10`, `…/tree/<ref>/<dir>`,
 * raw.githubusercontent.com) as candidate repository paths.
 */
import { splitAnchor, type LineRange } from './path-token.js';

/** Parses `https://<host>/<owner>/<repo>/(blob|tree|edit|raw)/<ref…>/<path>` and raw.githubusercontent URLs. */
export function parseGithubFileUrl(url: string): { repo: string; candidates: string[]; directory: boolean; lines: LineRange | null } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  // Every split of ref and path is a candidate: a link deeper than any repository is data.
  if (parsed.pathname.split('/', 80).length >= 80) return null;
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
  // A path whose first folder starts with `~` reads as a home in every shell an agent has: never one (as in text).
  for (let refLength = 1; refLength < rest.length; refLength++) if (!rest[refLength]!.startsWith('~')) candidates.push(rest.slice(refLength).join('/'));
  const anchor = splitAnchor(`x${parsed.hash}`);
  return { repo, candidates, directory, lines: parsed.hash ? anchor.lines : null };
}
