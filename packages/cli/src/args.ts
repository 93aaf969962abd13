import { parseArgs, type ParseArgsConfig } from 'node:util';
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

/** Parses argv strictly: an unknown flag or a missing value is a usage error naming the flag. */
export function parseCommandArgs(command: string, specs: FlagSpecs, argv: readonly string[], positionals = false): ParsedArgs {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  try {
    const parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: positionals });
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

/** An integer flag with a minimum: `--top abc` or `--wave-size 0` is a usage error. */
export function intFlag(values: ParsedArgs['values'], name: string, min: number): number | undefined {
  const raw = stringFlag(values, name);
  if (raw === undefined) return undefined;
  if (!/^\s*[+-]?\d+\s*$/.test(raw)) throw new UsageError(`--${name}: expected an integer, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new UsageError(`--${name}: expected an integer of at least ${min}, got ${raw.trim()}`);
  return value;
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
