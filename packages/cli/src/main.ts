/**
 * `waves` — the command line. Parses the command, runs it, and turns errors into exit codes in
 * one place (`exitCodeFor`). Secrets from the environment never reach the output. The bin loads
 * this module alone; each command's module loads when it runs.
 */
import { createRequire } from 'node:module';
import { exitCodeFor, formatError, UsageError } from './errors.js';
import { processIo, type CliIo } from './io.js';
import { nearest } from './args.js';
import { escapeControls } from './render/safe-text.js';
import { heldTokens } from '@waves/dispatch/token-holder';

const require = createRequire(import.meta.url);
const VERSION = (require('../package.json') as { version: string }).version;

type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** A command whose module loads when it runs: `waves --help` or `waves plan` never load what another command needs. */
function lazy<M>(load: () => Promise<M>, name: keyof M): Command {
  return async (argv, io) => ((await load())[name] as Command)(argv, io);
}

const COMMANDS: Record<string, { run: Command; summary: string }> = {
  plan: { run: lazy(() => import('./commands/plan.js'), 'runPlan'), summary: 'Plan the top issues of the backlog into conflict-free waves' },
  explain: { run: lazy(() => import('./commands/explain.js'), 'runExplain'), summary: 'Explain where one issue landed in the plan, and why' },
  dispatch: { run: lazy(() => import('./commands/dispatch.js'), 'runDispatch'), summary: 'Run one wave: an agent per issue under leases (--dry-run shows the commands)' },
  graph: { run: lazy(() => import('./commands/graph.js'), 'runGraph'), summary: 'Report on the import graph: packages, hubs, barrels, unresolved imports' },
  lease: { run: lazy(() => import('./commands/lease.js'), 'runLease'), summary: 'Acquire, release, renew or list exclusive leases on lanes and paths' },
  status: { run: lazy(() => import('./commands/status.js'), 'runStatus'), summary: 'List agent runs: status, duration, log; settle stale ones (--reap)' },
  stop: { run: lazy(() => import('./commands/stop.js'), 'runStop'), summary: 'Stop runs still going: their processes, then the record (cancelled) and leases' },
  harvest: { run: lazy(() => import('./commands/harvest.js'), 'runHarvest'), summary: 'Witness a wave: diff, fence audit, verification, commit with (#N); prediction accuracy' },
  backtest: { run: lazy(() => import('./commands/backtest.js'), 'runBacktestCommand'), summary: "Replay the repository's history as a backlog and judge the plan: violations, waves, rules" },
  fence: { run: lazy(() => import('./commands/fence.js'), 'runFence'), summary: "Ask a running agent's live fence about paths outside it: allowed, granted (leased) or refused" },
  trust: { run: lazy(() => import('./commands/trust.js'), 'runTrust'), summary: 'Show the git config that names programs (filters, signing) and trust it (--yes)' },
  compare: { run: lazy(() => import('./commands/compare.js'), 'runCompare'), summary: 'Burndown against a saved plan: closed, progress, remaining waves, new issues' },
  schema: { run: lazy(() => import('./commands/schema.js'), 'runSchema'), summary: 'Print the JSON Schema of the plan, the config file, the graph report, a run record or the backtest report' },
  init: { run: lazy(() => import('./commands/init.js'), 'runInit'), summary: 'Write a starting waves.config.json (with its JSON Schema)' },
};

export const MAIN_HELP = `waves ${VERSION} — plan and dispatch waves of parallel coding-agent work

Usage: waves <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Run 'waves <command> --help' for a command's options.
Exit codes: 0 ok, 1 failure, 2 bad usage, input or config (dispatch, harvest and lease add theirs: see their --help).
`;

/** Values that must never be printed: tokens from the environment, or held in memory (token-holder.ts). */
function secretsOf(env: CliIo['env']): string[] {
  const held = heldTokens();
  return ['GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_ENTERPRISE_TOKEN', 'GH_ENTERPRISE_TOKEN']
    .map((name) => env[name] ?? held[name])
    .filter((v): v is string => typeof v === 'string' && v.length >= 4);
}

/**
 * `text` with `secret` replaced by [REDACTED] — and any part of it: a server's message that echoes
 * the token is cut to a short line before it is printed, and a cut inside the token left most of it
 * (72 of 101 characters). Any run of eight characters or more that starts the secret goes too, and
 * so does any run of eight or more of its letters and digits in a row spelled out with anything
 * else between them (`ghp_SEC RETtoke n012…`, a character per zero-width space, control characters
 * a printer turned into spaces or escapes — `\u200b`, `\u{b}`, JSON's `\t` —, underscores):
 * red teams L1 and M1. A server that *encodes* the token (base64, other letters between its
 * characters) is beyond any redaction — the token goes only to the API host you name, which holds
 * it anyway. Linear in the text (red team M2: an issue repeating a fine-grained token's public
 * `github_p` made every plan quadratic).
 */
export function redactSecret(text: string, secret: string): string {
  const whole = text.split(secret).join('[REDACTED]');
  if (secret.length < 12) return whole;
  const head = secret.slice(0, 8);
  const parts: string[] = [];
  let from = 0;
  for (let at = whole.indexOf(head); at >= 0; at = whole.indexOf(head, from)) {
    let n = head.length;
    while (at + n < whole.length && n < secret.length && whole[at + n] === secret[n]) n++;
    parts.push(whole.slice(from, at), '[REDACTED]');
    from = at + n;
  }
  parts.push(whole.slice(from));
  return redactSpelledOut(parts.join(''), secret);
}

/** An escape a printer writes for an invisible character (`\u200b`, `\u{200b}`, `\x0b`, JSON's `\t` `\n` `\r` `\b` `\f`): a separator, not part of the text. */
const ESCAPE = String.raw`\\u\{[0-9a-fA-F]{1,6}\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[tnrbf]`;
/**
 * How a text is read for a spelled-out token, each way a regular expression whose group 1 is what
 * stands between (skipped) and whose other matches are runs of token characters: escapes between
 * letters and digits; the same with underscores between them too (`g_h_p___S…`); and only the
 * escapes' markers between, their letters kept (`S\u{E}\u{C}R…` — ambiguous: an escape of
 * U+000E, or the letter E set apart).
 */
const READINGS: readonly { pieces: RegExp; tokenChar: RegExp }[] = [
  { pieces: new RegExp(`(${ESCAPE})|[A-Za-z0-9_]+`, 'g'), tokenChar: /[A-Za-z0-9_]/ },
  { pieces: new RegExp(`(${ESCAPE})|[A-Za-z0-9]+`, 'g'), tokenChar: /[A-Za-z0-9]/ },
  { pieces: /(\\u\{|\\[ux]|\\)|[A-Za-z0-9_]+/g, tokenChar: /[A-Za-z0-9_]/ },
];
const WINDOW = 8;

/** Where in `text` the runs of `WINDOW` or more of `key`'s characters stand, read one way (see READINGS). */
function spelledSpans(text: string, key: string, pieces: RegExp): [number, number][] {
  if (key.length < WINDOW) return [];
  // The text's token characters in one pass, each run with where it stands in the text.
  let skeleton = '';
  const runs: { from: number; at: number }[] = [];
  for (const piece of text.matchAll(pieces)) {
    if (piece[1] !== undefined) continue;
    runs.push({ from: skeleton.length, at: piece.index });
    skeleton += piece[0];
  }
  /** Where the skeleton's `k`-th character stands in the text. */
  const textIndex = (k: number): number => {
    let lo = 0;
    let hi = runs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (runs[mid]!.from <= k) lo = mid;
      else hi = mid - 1;
    }
    return runs[lo]!.at + (k - runs[lo]!.from);
  };
  const spans: [number, number][] = [];
  // A match is found once per window it holds: where each alignment of the key (skeleton offset
  // less key offset) last ended, so that the later windows of one match extend it no more.
  const ended = new Map<number, number>();
  for (let k = 0; k + WINDOW <= key.length; k++) {
    const window = key.slice(k, k + WINDOW);
    for (let found = skeleton.indexOf(window); found >= 0; found = skeleton.indexOf(window, found + 1)) {
      if ((ended.get(found - k) ?? -1) >= found + WINDOW) continue;
      let start = found;
      let end = found + WINDOW;
      for (let ks = k; start > 0 && ks > 0 && skeleton[start - 1] === key[ks - 1]; ks--) start--;
      for (let ke = k + WINDOW; end < skeleton.length && ke < key.length && skeleton[end] === key[ke]; ke++) end++;
      spans.push([textIndex(start), textIndex(end - 1) + 1]);
      ended.set(found - k, end);
      // Overlapping finds of this window add nothing the span does not hold.
      found = Math.max(found, end - WINDOW);
    }
  }
  return spans;
}

/** `text` with every run of `WINDOW` or more of the secret's token characters, whatever stands between them, replaced by [REDACTED]. */
function redactSpelledOut(text: string, secret: string): string {
  const spans = READINGS.flatMap(({ pieces, tokenChar }) => spelledSpans(text, [...secret].filter((c) => tokenChar.test(c)).join(''), pieces));
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let result = '';
  let from = 0;
  for (const [start, end] of spans) {
    if (end <= from) continue;
    result += `${text.slice(from, Math.max(from, start))}[REDACTED]`;
    from = Math.max(from, end);
  }
  return result + text.slice(from);
}

function redacting(io: CliIo): CliIo {
  const secrets = secretsOf(io.env);
  if (secrets.length === 0) return io;
  const scrub = (text: string) => secrets.reduce(redactSecret, text);
  return { ...io, stdout: (text) => io.stdout(scrub(text)), stderr: (text) => io.stderr(scrub(text)) };
}

/** stdout never carries a raw control character, whichever renderer wrote it (see escapeControls). */
function escaping(io: CliIo): CliIo {
  return { ...io, stdout: (text) => io.stdout(escapeControls(text)) };
}

export async function main(argv: readonly string[], rawIo: CliIo = processIo()): Promise<number> {
  const io = escaping(redacting(rawIo));
  const debug = argv.includes('--debug');
  try {
    const [name, ...rest] = argv;
    if (name === undefined) {
      io.stderr(MAIN_HELP);
      return 2;
    }
    if (name === '--help' || name === '-h' || name === 'help') {
      io.stdout(MAIN_HELP);
      return 0;
    }
    if (name === '--version' || name === '-v') {
      io.stdout(`${VERSION}\n`);
      return 0;
    }
    // The supervisor of one agent run: internal, started by waves dispatch.
    if (name === '__run') return await (await import('./commands/supervise.js')).runSupervisor(rest, io);
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) {
      const hint = nearest(name, Object.keys(COMMANDS));
      throw new UsageError(`unknown command ${JSON.stringify(name)}${hint ? ` (did you mean ${hint}?)` : ''}; see waves --help`);
    }
    return await command.run(rest, io);
  } catch (error) {
    io.stderr(formatError(error, debug));
    return exitCodeFor(error);
  }
}
