import { parseArgs, type ParseArgsConfig } from 'node:util';
import { durationProblem, parseDuration } from '@waves/dispatch';
import { ConfigError } from '@waves/planner';
import { UsageError } from './errors.js';

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Shown in --help: the value's name (`N`, `FILE`). */
  value?: string;
  description: string;
  default?: string;
}

export type FlagSpecs = Record<string, FlagSpec>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** `-1`, `-5m`, `-0.5`: a value a person meant, a negative number (parseArgs takes it for a flag). */
const NUMBER_LIKE = /^-\.?\d/;

/**
 * A value that starts with a dash after a flag that takes one (`--top -1`, `--repo -x/y`): node's
 * parseArgs calls it ambiguous. A number-like one is the flag's value — its own check then says
 * what is wrong with it (`--top: expected an integer of at least 1, got -1`); a flag of the command
 * means the value was forgotten; anything else must be written `--flag=value`.
 */
function disambiguate(command: string, specs: FlagSpecs, argv: readonly string[]): string[] {
  const byName = new Map<string, [string, FlagSpec]>();
  for (const [name, spec] of Object.entries(specs)) {
    byName.set(`--${name}`, [name, spec]);
    if (spec.short) byName.set(`-${spec.short}`, [name, spec]);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const flag = byName.get(token);
    const value = argv[i + 1];
    if (!flag || flag[1].type !== 'string' || value === undefined || !value.startsWith('-') || value === '-') {
      out.push(token);
      continue;
    }
    const [name] = flag;
    if (NUMBER_LIKE.test(value)) {
      out.push(`--${name}=${value}`);
      i += 1;
      continue;
    }
    if (value === '--' || byName.has(value.split('=')[0]!)) throw new UsageError(`${command}: option --${name} needs a value`);
    throw new UsageError(`--${name}: a value starting with - must be written --${name}=${value}`);
  }
  return out;
}

/** Parses argv strictly: an unknown flag or a missing value is a usage error naming the flag. */
export function parseCommandArgs(command: string, specs: FlagSpecs, argv: readonly string[], positionals = false): ParsedArgs {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  const args = disambiguate(command, specs, argv);
  try {
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: positionals });
    return { values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals };
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message);
    if (unknown) {
      const hint = nearest(unknown[1]!.replace(/^-+/, ''), Object.keys(specs));
      throw new UsageError(`${command}: unknown option ${unknown[1]}${hint ? ` (did you mean --${hint}?)` : ''}; see waves ${command} --help`);
    }
    const missing = /Option '([^']+)' argument missing/.exec(message);
    if (missing) throw new UsageError(`${command}: option ${missing[1]!.replace(/ <value>$/, '')} needs a value`);
    const positional = /Unexpected argument '([^']+)'/.exec(message);
    if (positional) throw new UsageError(`${command}: unexpected argument ${positional[1]}; see waves ${command} --help`);
    throw new UsageError(`${command}: ${message.split('\n')[0]}`);
  }
}

/** Levenshtein distance, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

export function nearest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : null;
}

export function stringFlag(values: ParsedArgs['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** An integer flag with a minimum (and a maximum, when given): `--top abc` or `--wave-size 0` is a usage error. */
export function intFlag(values: ParsedArgs['values'], name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = stringFlag(values, name);
  if (raw === undefined) return undefined;
  if (!/^\s*[+-]?\d+\s*$/.test(raw)) throw new UsageError(`--${name}: expected an integer, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  const shown = raw.trim().length > 40 ? `${raw.trim().slice(0, 40)}…` : raw.trim();
  if (value > Number.MAX_SAFE_INTEGER) throw new UsageError(`--${name}: expected an integer of at most ${Number.MAX_SAFE_INTEGER} (2^53−1), got ${shown}`);
  if (!Number.isSafeInteger(value) || value < min) throw new UsageError(`--${name}: expected an integer of at least ${min}, got ${shown}`);
  if (value > max) throw new UsageError(`--${name}: expected an integer of at most ${max.toLocaleString('en-US')}, got ${shown}`);
  return value;
}

/** A number flag within bounds (`--inference-threshold 0.6`): anything else is a usage error. */
export function fractionFlag(values: ParsedArgs['values'], name: string, min: number, max: number): number | undefined {
  const raw = stringFlag(values, name);
  if (raw === undefined) return undefined;
  const value = /^\s*\d*\.?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value < min || value > max) throw new UsageError(`--${name}: expected a number from ${min} to ${max}, got ${JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)}`);
  return value;
}

/**
 * A duration from a flag or the config (`--timeout`, `leases.ttl`), in milliseconds: one that is not
 * a duration, or is longer than a timer can wait (2^31−1 ms, 24.8 days), is an error naming where it
 * came from — a usage error for a flag, a config error for a key — exit code 2 either way.
 */
export function durationOf(text: string, from: { flag: string } | { configKey: string }): number {
  const ms = parseDuration(text);
  if (ms !== null) return ms;
  const problem = durationProblem(text) ?? `not a duration: ${JSON.stringify(text)}`;
  throw 'flag' in from ? new UsageError(`--${from.flag}: ${problem}`) : new ConfigError(`config ${from.configKey}: ${problem}`);
}

export function enumFlag<T extends string>(values: ParsedArgs['values'], name: string, allowed: readonly T[]): T | undefined {
  const raw = stringFlag(values, name);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) throw new UsageError(`--${name}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

/** Help text for a command's flags, aligned. */
export function renderFlags(specs: FlagSpecs): string {
  const rows = Object.entries(specs).map(([name, spec]) => {
    const left = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.value ? ` ${spec.value}` : ''}`;
    const right = `${spec.description}${spec.default !== undefined ? ` (default: ${spec.default})` : ''}`;
    return [left, right] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join('\n');
}
