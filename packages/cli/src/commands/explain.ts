/**
 * `waves explain N`: why issue N is where the plan put it.
 */
import { analyzePlan, explainIssue, IssueExplanationSchema } from '@waves/planner';
import { parseCommandArgs, renderFlags, type FlagSpecs } from '../args.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { renderExplanation } from '../render/explanation.js';
import { loadPlanInput, SOURCE_FLAGS } from './plan-input.js';

export const EXPLAIN_FLAGS: FlagSpecs = {
  ...SOURCE_FLAGS,
  json: { type: 'boolean', description: 'Print the explanation as JSON' },
};

export const EXPLAIN_HELP = `Usage: waves explain N [--from-issues FILE | --repo OWNER/NAME] [options]

Plans the backlog as waves plan does (same sources, config and flags) and explains issue N: its
bucket and the reason; each path of its scope with the text of the issue (or the label, or the
lane) that produced it; every conflict with every other selected issue and its evidence (the
import chain, the containing directory, the serial rule, the dependency); and why it is not in
an earlier wave.

Options:
${renderFlags(EXPLAIN_FLAGS)}

Examples:
  waves explain 101 --from-issues examples/backlog.json --root examples/shop
  waves explain 42 --repo acme/shop --json

Exit codes: 0 explained, 2 bad flag or an issue that is not in the backlog, 1 failure.
`;

export async function runExplain(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('explain', EXPLAIN_FLAGS, argv, true);
  if (values.help) {
    io.stdout(EXPLAIN_HELP);
    return 0;
  }
  if (positionals.length !== 1 || !/^#?\d+$/.test(positionals[0]!)) {
    throw new UsageError(`explain: expected one issue number, got ${positionals.length === 0 ? 'none' : JSON.stringify(positionals.join(' '))}; see waves explain --help`);
  }
  const number = Number(positionals[0]!.replace(/^#/, ''));
  if (!Number.isSafeInteger(number)) {
    throw new UsageError(`explain: expected an issue number of at most ${Number.MAX_SAFE_INTEGER} (2^53−1), got ${positionals[0]!.length > 40 ? `${positionals[0]!.slice(0, 40)}…` : positionals[0]}`);
  }
  const { input, backlog, source } = await loadPlanInput(values, io);
  const analysis = analyzePlan(input);
  const explanation = explainIssue(analysis, number, backlog);
  if (!explanation) throw new UsageError(`explain: issue #${number} is not in the backlog (${source})`);
  io.stdout(values.json ? `${JSON.stringify(IssueExplanationSchema.parse(explanation), null, 2)}\n` : renderExplanation(explanation));
  return 0;
}
