/**
 * The flags of a bench script, `--help` included: its usage line and exit 0 on `--help`, exit 2
 * when the flag it cannot run without is missing.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export function benchArgs<const O extends Options, R extends keyof O & string>(options: O, usage: string, required: R) {
  const { values } = parseArgs({ options: { ...options, help: { type: 'boolean' } } as O & { help: { type: 'boolean' } }, strict: true, allowPositionals: false });
  const flags = values as Record<string, unknown>;
  if (flags.help || flags[required] === undefined) {
    console.log(`usage: ${usage}`);
    process.exit(flags.help ? 0 : 2);
  }
  return values as typeof values & { [K in R]: string };
}
