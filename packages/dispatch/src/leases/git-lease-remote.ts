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

/**
 * The URL as a run record may keep it: any password or token taken out. `user:password@`, and a
 * user name on https (a token is often sent as one), are replaced by `***@`; an ssh user name
 * (`ssh://git@host/…`, `git@host:…`) is no secret and stays.
 */
export function recordableUrl(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/@]*)@/i.exec(url);
  if (match === null) return url;
  const ssh = ['ssh', 'git+ssh', 'ssh+git'].includes(match[1]!.toLowerCase());
  return ssh && !match[2]!.includes(':') ? url : redactUrl(url);
}

/** A URL git reaches on this machine's file system (a path or `file://`): a push there runs its hooks as you. */
export function isLocalUrl(url: string): boolean {
  if (/^file:\/\//i.test(url)) return true;
  return !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) && !/^[^/]*:/.test(url);
}

/**
 * The receive-pack a push to a local remote runs, with the receiving repository's hooks and its
 * program-running settings off. A push over the file transport starts `git receive-pack` in that
 * repository, as you, through the shell; it reads that repository's config and runs its hooks
 * (pre-receive, update, post-receive, reference-transaction…) and `core.alternateRefsCommand` —
 * whoever could write into it could run a program on your next lease change. Command-line `-c`
 * wins over the repository's config. (An ssh or https remote runs its server's hooks, by design:
 * they are the server's, not a file on this machine.)
 */
export const LOCAL_RECEIVE_PACK = [
  'git',
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.alternateRefsCommand=true',
  '-c', 'receive.autogc=false',
  'receive-pack',
].join(' ');

/** Takes the URL (with any credentials) out of a message of git's. */
export function redact(message: string, url: string): string {
  return message.split(url).join(redactUrl(url)).replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');
}

