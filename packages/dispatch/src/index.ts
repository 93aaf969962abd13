/**
 * @waves/dispatch — turns a plan into agent work: leases, agent commands, worker prompts, model
 * routing, spawning and run records. This first slice names the tier every issue gets until
 * routing is configured; the rest lands with the dispatch issues.
 */
import type { Plan } from '@waves/planner';

/** The cheap tier every issue routes to when no routing is configured. */
export const DEFAULT_TIER = 'default';

/** Issues of a plan's waves in dispatch order: wave by wave, rank order within a wave. */
export function dispatchOrder(plan: Plan): { wave: number; number: number; title: string }[] {
  return plan.waves.flatMap((wave) => wave.issues.map((issue) => ({ wave: wave.index, number: issue.number, title: issue.title })));
}

export { AGENT_PRESETS, agentTemplate, AgentTemplateError, PLACEHOLDERS, renderCommand } from './agents/agent-command.js';
export { validateTemplate, VALUE_FLAGS } from './agents/template-rule.js';
export type { AgentTemplate, CommandValues, Placeholder } from './agents/agent-command.js';
export { DEFAULT_PROMPT_TEMPLATE, quoteBody, renderPrompt } from './prompt/render-prompt.js';
export type { PromptContext } from './prompt/render-prompt.js';
export { buildDispatch, buildIssueDispatch, modelFor, packagesOfPaths, renderVerify } from './build-dispatch.js';
export type { DispatchOptions, IssueDispatch, WaveDispatch, WorktreeCommand } from './build-dispatch.js';
export { checkOwnDirectories, OWN_DIRECTORIES, STATE_DIR } from './own-dirs.js';
export { quoteArg, shellQuote } from './shell-quote.js';
export { AgentConfigSchema, AgentsConfigSchema, DispatchConfigShape, LeasesConfigSchema, LogsConfigSchema, PromptConfigSchema, RoutingConfigSchema, TierSchema } from './config-schema.js';
export type { AgentConfig, LogsConfig, RoutingConfig } from './config-schema.js';
export {
  acquireLease,
  acquireLeases,
  appendEvent,
  DEFAULT_JOURNAL,
  defaultHolder,
  listLeases,
  parseDuration,
  readJournal,
  releaseLease,
  releaseLeases,
  renewLease,
  withJournalLock,
} from './leases/lease-journal.js';
export type { AcquireResult, ChangeResult, CorruptLine, JournalLock, JournalRead, LeaseRequest } from './leases/lease-journal.js';
export {
  isAlive,
  readRecord,
  readRecords,
  readSeal,
  readTrustedRecord,
  readSeals,
  RunRecordSchema,
  RunScopeSchema,
  VerifyResultSchema,
  WitnessSchema,
  RUNS_DIR,
  runFiles,
  runId,
  stamp,
  TERMINAL,
  viewStatus,
  writeRecord,
  writeWitness,
} from './runs/run-record.js';
export { FIXED_AT_DISPATCH, rewrittenFields, sealDirOf, sealFileOf, stateDir } from './runs/record-seal.js';
export type { RecordListing, RunRecord, RunScope, RunView, TerminalStatus, VerifyResult, Witness } from './runs/run-record.js';
export { commitSubject, harvestRun, HarvestBusyError } from './harvest/harvest-run.js';
export type { HarvestOptions, HarvestOutcome } from './harvest/harvest-run.js';
export { changesSince, dirtySnapshot, git, GIT_OPTIONS, GitError, hashFiles, headCommit, workTreeOf } from './harvest/git-changes.js';
export { checkCommit, committedPaths, undoCommit } from './harvest/check-commit.js';
export type { CommitCheck } from './harvest/check-commit.js';
export { changesWhatGitRuns, gitStateChanges, readGitEntries, readGitState } from './harvest/git-snapshot.js';
export type { GitState, GitStateChange } from './harvest/git-snapshot.js';
export { runVerify } from './harvest/run-verify.js';
export { killGroup, superviseRun } from './runs/supervise.js';
export type { SuperviseOptions } from './runs/supervise.js';
export { childEnvironment, markerEntry, RUN_MARKER, secretsOf, TOKEN_VARIABLES } from './runs/agent-env.js';
export { DEFAULT_GRACE_MS, groupRefusal, stopProcessTree } from './runs/kill-tree.js';
export type { TreeStop, TreeTarget } from './runs/kill-tree.js';
export { keepLeases } from './runs/keep-leases.js';
export type { KeepLeasesOptions, LeaseKeeper } from './runs/keep-leases.js';
export { startLogged, truncationNote } from './runs/logged-process.js';
export type { Exit, LoggedOptions, LoggedProcess } from './runs/logged-process.js';
export { isRunning } from './runs/process-table.js';
export { REDACTED, redactFile, Redactor } from './runs/redact.js';
export { stopRun } from './runs/stop-run.js';
export type { StopOutcome, StopRunOptions } from './runs/stop-run.js';
export { runWave } from './runs/run-wave.js';
export type { RunEvent, RunWaveOptions, WaveResult } from './runs/run-wave.js';
