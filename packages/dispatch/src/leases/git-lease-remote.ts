/**
 * What the git lease backend lets a URL do. Lease fetches and pushes reach a remote, so the
 * transports are the one thing SAFE_GIT_CONFIG's `protocol.allow=never` must open: exactly `file`,
 * `ssh` and `https`. Everything that could run a program or carries no integrity stays refused —
 * `ext::` (runs a command line), `fd::` and any `<helper>::` (a remote helper program), `git://`
 * (its `core.gitProxy` runs a program; no integrity) and `http://` — both when the config is read
 * (`remoteUrlProblem`, one line naming the key) and in git itself (`protocol.<name>.allow=never`
 * on the command line wins over any repository or global setting, also after an `insteadOf`).
 * Credentials are git's (its helpers, ssh agent); a URL's `user:password@` never reaches a message.
 */
import { SAFE_GIT_CONFIG } from '@waves/planner';

/** The transports a lease fetch or push may use; every other (ext::, fd::, git://, helpers) stays off. */
const TRANSPORTS = ['file', 'ssh', 'https'] as const;
export const TRANSPORT_CONFIG = [
  ...SAFE_GIT_CONFIG,
  ...TRANSPORTS.flatMap((name) => ['-c', `protocol.${name}.allow=always`]),
  '-c', 'protocol.ext.allow=never',
  '-c', 'protocol.git.allow=never',
  '-c', 'protocol.http.allow=never',
  '-c', 'fetch.recurseSubmodules=false',
  '-c', 'transfer.fsckObjects=false',
  '-c', 'core.askPass=',
];

/** A URL with any `user:password@` taken out, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1***@');
}

/**
 * Why a remote URL is not one a lease may travel over, or null. Allowed: a local path or
 * `file://`, `ssh://` (and scp-like `host:path`), `https://`. Refused: `ext::…` and every other
 * `<helper>::…`, `git://` and `http://` (no integrity), anything starting with `-` (an option).
 */
export function remoteUrlProblem(url: string): string | null {
  if (url.trim() === '' || /[\0\n\r]/.test(url)) return 'is empty or holds a control character';
  if (url.startsWith('-')) return 'starts with "-" (git would read it as an option)';
  if (/^[A-Za-z0-9+.-]+::/.test(url)) return 'names a remote helper (<transport>::…), which could run any program';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (['file', 'ssh', 'git+ssh', 'ssh+git', 'https'].includes(scheme)) return null;
    return `uses ${scheme}://, not one of file, ssh, https`;
  }
  return null; // a path or scp-like ssh (host:path)
}

/** Takes the URL (with any credentials) out of a message of git's. */
export function redact(message: string, url: string): string {
  return message.split(url).join(redactUrl(url)).replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');
}

