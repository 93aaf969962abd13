/**
 * `waves schema plan|config|graph`: the JSON Schema of the plan, the config file or the graph
 * report, generated from the zod schemas the code validates with.
 */
import { z } from 'zod';
import { GraphReportSchema, PlanSchema } from '@waves/planner';
import { parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import { ConfigSchema } from '../config/config-schema.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';

const SCHEMAS = { plan: PlanSchema, config: ConfigSchema, graph: GraphReportSchema } as const;

export const SCHEMA_FLAGS: FlagSpecs = {
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const SCHEMA_HELP = `Usage: waves schema plan|config|graph

Prints the JSON Schema (draft 2020-12) of the plan (waves plan --json), of waves.config.json, or
of the graph report (waves graph --json), generated from the schemas waves validates with.

Options:
${renderFlags(SCHEMA_FLAGS)}

Examples:
  waves schema config > waves.config.schema.json
  waves schema plan | jq '.properties.summary'
`;

export function jsonSchemaOf(name: keyof typeof SCHEMAS): Record<string, unknown> {
  const schema = z.toJSONSchema(SCHEMAS[name], { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, title: name === 'config' ? 'waves.config.json' : name === 'plan' ? 'waves plan --json (schemaVersion 1)' : 'waves graph --json' };
}

export async function runSchema(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('schema', SCHEMA_FLAGS, argv, true);
  if (values.help) {
    io.stdout(SCHEMA_HELP);
    return 0;
  }
  const name = positionals[0];
  if (positionals.length !== 1 || !(name! in SCHEMAS)) {
    throw new UsageError(`schema: expected one of ${Object.keys(SCHEMAS).join(', ')}${name ? `, got ${JSON.stringify(name)}` : ''}`);
  }
  io.stdout(`${JSON.stringify(jsonSchemaOf(name as keyof typeof SCHEMAS), null, 2)}\n`);
  return 0;
}
