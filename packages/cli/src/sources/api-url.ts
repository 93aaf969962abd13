/**
 * Which GitHub API waves talks to — and so where the token goes. The rule:
 *
 * - https://api.github.com, unless the user names another API on the command line
 *   (`--api-url`) or in the environment (`GITHUB_API_URL`); the flag wins over the variable.
 * - A config file's `defaults.apiUrl` is the repository's word, not the user's: a cloned
 *   repository could name any host. It is refused unless it is api.github.com or the user names
 *   the same host (scheme, host and port) with `--api-url` or `GITHUB_API_URL`. Any config file
 *   counts, `--config FILE` included: where it came from cannot be told.
 * - https only; plain http only to a loopback host (127.0.0.1, ::1, localhost) that the user
 *   named — a test server or a local proxy, where the token does not cross a network.
 * - No credentials, query or fragment in the URL.
 *
 * Checked before any request is made. A redirect to another host is followed without the token
 * (fetch drops `Authorization` across origins); a next-page link (`Link: rel="next"`) to another
 * origin is refused before it is requested (github.ts), since octokit would send the token along.
 */
import { ConfigError } from '@waves/planner';
import { UsageError } from '../errors.js';

export const GITHUB_API = 'https://api.github.com';
/** How long one request may take, answer included, before it counts as a network fault. */
export const DEFAULT_API_TIMEOUT_MS = 30_000;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export interface ApiUrlSources {
  /** `--api-url`. */
  flag: string | undefined;
  /** `GITHUB_API_URL` (empty counts as unset). */
  env: string | undefined;
  /** `defaults.apiUrl` of the config file, and the file's name as shown. */
  config: string | undefined;
  configFile: string;
}

type Fail = (message: string) => Error;

/** A URL that can be an API base, or the error `fail` makes of what is wrong with it. */
function parseApiUrl(text: string, where: string, fail: Fail): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fail(`${where} ${JSON.stringify(text)}: not a URL; expected https://HOST[/PATH]`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail(`${where}: expected an https:// URL, got ${url.protocol}`);
  // Shown without what follows the host: it may be a credential.
  const shown = `${url.protocol}//${url.host}`;
  if (url.username !== '' || url.password !== '') throw fail(`${where}: ${shown} with credentials in the URL is refused; the token comes from GITHUB_TOKEN or GH_TOKEN`);
  if (url.search !== '' || url.hash !== '') throw fail(`${where}: ${shown}…: a query or fragment has no place in an API URL`);
  return url;
}

/** The flag's URL (checked on its own, whatever the backlog's source, so that a typo is exit 2). */
export function checkApiUrlFlag(flag: string | undefined): void {
  if (flag !== undefined) userUrl(flag, '--api-url');
}

/**
 * The ports fetch refuses to connect to (the Fetch standard's "bad ports"): a request there fails
 * with "bad port" — each time, so octokit's retries would only wait 14 s for the same answer.
 */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723,
  2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

function userUrl(text: string, where: string): URL {
  const url = parseApiUrl(text, where, (message) => new UsageError(message));
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    throw new UsageError(`${where}: plain http to ${url.host} is refused (the token would cross the network in clear); use https, or http to 127.0.0.1, ::1 or localhost`);
  }
  if (url.port !== '' && BAD_PORTS.has(Number(url.port))) throw new UsageError(`${where}: port ${url.port} is one that fetch never connects to (a "bad port"); use another`);
  return url;
}

/** The API base URL to use (undefined: api.github.com), by the rule of the file header. */
export function resolveApiUrl(sources: ApiUrlSources): string | undefined {
  const env = sources.env === '' ? undefined : sources.env;
  const user = sources.flag !== undefined ? userUrl(sources.flag, '--api-url') : env !== undefined ? userUrl(env, 'GITHUB_API_URL') : undefined;
  if (sources.config !== undefined) {
    const where = `config ${sources.configFile}: defaults.apiUrl`;
    const fromConfig = parseApiUrl(sources.config, where, (message) => new ConfigError(message));
    if (user === undefined && fromConfig.origin !== new URL(GITHUB_API).origin) {
      throw new ConfigError(
        `${where} names ${fromConfig.origin}, which you have not confirmed: waves sends requests and the token only to api.github.com or a host you name; pass --api-url ${fromConfig.href} (or set GITHUB_API_URL) to use it`,
      );
    }
    // Confirmed (the same host), or overridden by the user's own URL like any default.
  }
  return user?.href;
}

/** `host[:port]` of the API, for messages. */
export function apiHost(apiUrl: string | undefined): string {
  return new URL(apiUrl ?? GITHUB_API).host;
}
