/**
 * `waves schema plan|config|graph|run|backtest`: the JSON Schema of the plan, the config file,
 * the graph report, a run record or the backtest report, generated from the zod schemas the
 * code validates with.
 */
import { z } from 'zod';
import { RunRecordSchema } from '@waves/dispatch';
import { BacktestReportSchema, GraphReportSchema, PlanSchema } from '@waves/planner';
import { parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import { ConfigSchema } from '../config/config-schema.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';

const SCHEMAS = { plan: PlanSchema, config: ConfigSchema, graph: GraphReportSchema, run: RunRecordSchema, backtest: BacktestReportSchema } as const;
const TITLES: Record<keyof typeof SCHEMAS, string> = {
  plan: 'waves plan --json (schemaVersion 1)',
  config: 'waves.config.json',
  graph: 'waves graph --json',
  run: 'a run record: .dispatch-runs/resolve-<N>-<stamp>.json (witness: what waves harvest saw)',
  backtest: 'waves backtest --json (schemaVersion 1)',
};

export const SCHEMA_FLAGS: FlagSpecs = {
  debug: { type: 'boolean', description: 'Show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};

export const SCHEMA_HELP = `Usage: waves schema plan|config|graph|run|backtest

Prints the JSON Schema (draft 2020-12) of the plan (waves plan --json), of waves.config.json, of
the graph report (waves graph --json), of a run record (.dispatch-runs/resolve-<N>-<stamp>.json,
what waves dispatch, waves status and waves harvest write and read), or of the backtest report
(waves backtest --json), generated from the schemas waves validates with.

Options:
${renderFlags(SCHEMA_FLAGS)}

Examples:
  waves schema config > waves.config.schema.json
  waves schema plan | jq '.properties.summary'
`;

export function jsonSchemaOf(name: keyof typeof SCHEMAS): Record<string, unknown> {
  const schema = z.toJSONSchema(SCHEMAS[name], { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, title: TITLES[name] };
}

export async function runSchema(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('schema', SCHEMA_FLAGS, argv, true);
  if (values.help) {
    io.stdout(SCHEMA_HELP);
    return 0;
  }
  const name = positionals[0];
  if (positionals.length !== 1 || !Object.hasOwn(SCHEMAS, name!)) {
    throw new UsageError(`schema: expected one of ${Object.keys(SCHEMAS).join(', ')}${name ? `, got ${JSON.stringify(name)}` : ''}`);
  }
  io.stdout(`${JSON.stringify(jsonSchemaOf(name as keyof typeof SCHEMAS), null, 2)}\n`);
  return 0;
}
