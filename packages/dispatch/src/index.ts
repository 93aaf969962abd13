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

export { AGENT_PRESETS, agentTemplate, AgentTemplateError, PLACEHOLDERS, presetTemplate, renderCommand } from './agents/agent-command.js';
export { projectAgentConfigProblem } from './agents/project-agent-config.js';
export { claudePermissionArgs, CODEX_SANDBOXES, codexSandbox, commandRule, noRuleReason, OPENCODE_CONFIG_VARIABLE, opencodeConfig, permissionsWidening } from './agents/preset-permissions.js';
export type { CodexSandbox, CommandRule, PresetPermissionInput } from './agents/preset-permissions.js';
export { DEFAULT_SETUP_TIMEOUT, lockfileSetup } from './runs/worktree-setup.js';
export { validateTemplate, VALUE_FLAGS } from './agents/template-rule.js';
export type { AgentTemplate, CommandValues, Placeholder } from './agents/agent-command.js';
export { DEFAULT_PROMPT_TEMPLATE, inferredFenceNote, INVISIBLE, quoteBody, renderPrompt, showInvisible } from './prompt/render-prompt.js';
export type { PromptContext } from './prompt/render-prompt.js';
export { buildDispatch, buildIssueDispatch, modelFor, packagesOfPaths, renderVerify, runBranchOf } from './build-dispatch.js';
export type { DispatchOptions, IssueDispatch, WaveDispatch, WorktreeCommand } from './build-dispatch.js';
export { checkOwnDirectories, OWN_DIRECTORIES, STATE_DIR } from './own-dirs.js';
export { configChangedDuringRuns } from './runs/config-during-runs.js';
export { baseMovedDuringRuns, runBranchMovedDuringRuns, runSeals, type RunsSource } from './runs/base-during-runs.js';
export { worktreeReuseProblem, worktreeStateId } from './runs/worktree-reuse.js';
export { commonDirOf, gitFailure, resolveBase, worktreeProblem } from './runs/worktree-check.js';
export { quoteArg, shellQuote } from './shell-quote.js';
export { AgentConfigSchema, AgentPermissionsSchema, AgentsConfigSchema, DispatchConfigShape, LeasesConfigSchema, LogsConfigSchema, modelNameProblem, PromptConfigSchema, RoutingConfigSchema, TierSchema, WorktreeConfigSchema } from './config-schema.js';
export type { AgentConfig, AgentPermissions, LogsConfig, RoutingConfig, WorktreeConfig } from './config-schema.js';
export {
  acquireLease,
  acquireLeases,
  appendEvents,
  COMPACT_AT_BYTES,
  compactJournal,
  compactLeaseJournal,
  DEFAULT_JOURNAL,
  defaultHolder,
  durationProblem,
  listLeases,
  MAX_DURATION_MS,
  MAX_JOURNAL_BYTES,
  parseDuration,
  readJournal,
  releaseLease,
  releaseLeases,
  renewLease,
  successorOf,
  withJournalLock,
} from './leases/lease-journal.js';
export type { Compaction, CorruptLine, JournalEnd, JournalLock, JournalRead, LeaseRequest } from './leases/lease-journal.js';
export { decideLanes, LeaseBusyError, LeaseRemoteError, refusalOf } from './leases/lease-backend.js';
export type { AcquireRequest, AcquireResult, ChangeResult, GcResult, LeaseBackend, LeaseListing } from './leases/lease-backend.js';
export { journalBackend } from './leases/journal-backend.js';
export { DEFAULT_CLOCK_SKEW_MS, DEFAULT_LEASE_REF, DEFAULT_LEASE_REMOTE, gitLeaseBackend } from './leases/git-lease-backend.js';
export { isLocalUrl, LOCAL_RECEIVE_PACK, recordableUrl, redactUrl, remoteUrlProblem } from './leases/git-lease-remote.js';
export type { GitLeaseOptions } from './leases/git-lease-backend.js';
export { fanOutOf, holdsForOthers, leasePath, liveLeases, TableHeaderSchema, TableLeaseSchema } from './leases/git-lease-table.js';
export type { TableLease } from './leases/git-lease-table.js';
export { LEASE_REF_PREFIX, leaseRefProblem, leaseStoreOf, LeaseStoreSchema, openLeaseBackend, resolveLeaseStore } from './leases/open-lease-backend.js';
export type { LeaseStore, LeasesConfig } from './leases/open-lease-backend.js';
export {
  isAlive,
  isSameProcess,
  readRecord,
  readRecords,
  readSeal,
  readTrustedRecord,
  readSeals,
  removeRecord,
  RunRecordSchema,
  RunScopeSchema,
  VerifyResultSchema,
  WitnessSchema,
  RUNS_DIR,
  runFiles,
  runId,
  stamp,
  TERMINAL,
  TrackedSchema,
  viewStatus,
  writeRecord,
  writeWitness,
} from './runs/run-record.js';
export { FIXED_AT_DISPATCH, rewrittenFields, sealDirOf, sealFileOf, stateDir } from './runs/record-seal.js';
export type { RecordListing, RunRecord, RunScope, RunView, TerminalStatus, VerifyResult, Witness } from './runs/run-record.js';
export { harvestRun, HarvestBusyError } from './harvest/harvest-run.js';
export { commitMessage, commitSubject, MAX_SUBJECT_CHARS } from './harvest/commit-in-fence.js';
export type { HarvestOptions, HarvestOutcome } from './harvest/harvest-run.js';
export { changesSince, dirtySnapshot, git, GIT_OPTIONS, GitError, hashFiles, headCommit, workTreeOf } from './harvest/git-changes.js';
export { checkCommit, committedPaths, undoCommit } from './harvest/check-commit.js';
export { committedBranchProblem } from './harvest/committed-check.js';
export type { CommitCheck } from './harvest/check-commit.js';
export { changesWhatGitRuns, gitStateChanges, readGitEntries, readGitState } from './harvest/git-snapshot.js';
export type { GitState, GitStateChange } from './harvest/git-snapshot.js';
export { describeRefChanges, readRefs, refChanges, WATCHED_REFS } from './harvest/ref-snapshot.js';
export type { HeadState, RefChange, RefSnapshot } from './harvest/ref-snapshot.js';
export { describeNestedRepos, findNestedRepos } from './harvest/find-nested-repos.js';
export { HeldDir, heldDirsSupported, TreeRaceError } from './harvest/held-dir.js';
export { Reverter, RevertError } from './harvest/revert-path.js';
export { liveProcessesOf } from './runs/run-processes.js';
export type { NestedRepo } from './harvest/find-nested-repos.js';
export { DEFAULT_VERIFY_TIMEOUT, runVerify } from './harvest/run-verify.js';
export { killGroup, superviseRun } from './runs/supervise.js';
export type { SuperviseOptions } from './runs/supervise.js';
export { childEnvironment, markerEntry, RUN_MARKER, secretsOf, TOKEN_VARIABLES, tokensOf, withoutTokens } from './runs/agent-env.js';
export { heldTokens, holdTokens, takeTokens } from './runs/token-holder.js';
export { DEFAULT_GRACE_MS, groupRefusal, markedProcesses, stopProcessTree } from './runs/kill-tree.js';
export { DescendantTracker, TRACK_INTERVAL_MS } from './runs/track-descendants.js';
export type { TrackedProcesses } from './runs/track-descendants.js';
export { cloneOfHolder, cloneTag, fenceProblem, leasesByRun, releaseOwnLeases, runLeasesOf, runOfHolder } from './runs/run-leases.js';
export type { TreeStop, TreeTarget } from './runs/kill-tree.js';
export { keepLeases } from './runs/keep-leases.js';
export type { KeepLeasesOptions, LeaseKeeper } from './runs/keep-leases.js';
export { startLogged, truncationNote } from './runs/logged-process.js';
export type { Exit, LoggedOptions, LoggedProcess } from './runs/logged-process.js';
export { bootId, isRunning, isStopped, listProcesses, processStart, readOomScoreAdj } from './runs/process-table.js';
export { REDACTED, redactFile, Redactor } from './runs/redact.js';
export { stopRun } from './runs/stop-run.js';
export type { StopOutcome, StopRunOptions } from './runs/stop-run.js';
export { runWave } from './runs/run-wave.js';
export type { RunEvent, RunWaveOptions, WaveResult } from './runs/run-wave.js';
export { checkGitTrust, GitTrustError, originOf, recordGitTrust, reviewGitTrust } from './git-trust/git-trust.js';
export type { GitTrust, TrustReview } from './git-trust/git-trust.js';
export { namesProgram, parseConfigList, pathInRepository, programChanges, programConfig, signingOptions, trustedConfigOf } from './git-trust/program-config.js';
export type { GitConfigEntry, ProgramChange, ProgramConfig, TrustedConfig } from './git-trust/program-config.js';
export { askFence, claudeHookPaths, fenceSocketDir, fenceSocketPath, isRunId, opencodeCheck, opencodeHookPaths, runFenceCheck } from './fence/fence-client.js';
export type { FenceAnswer, FenceAsker, FencePathResult } from './fence/fence-client.js';
export { createFenceKeeper, rulesFromCache } from './fence/fence-keeper.js';
export type { FenceKeeper, FenceKeeperOptions } from './fence/fence-keeper.js';
export { resolveFencePath } from './fence/fence-paths.js';
export { startFenceServer } from './fence/fence-server.js';
export { isSkipped, watchTree } from './fence/fence-watch.js';
export { claudeSettings, CLAUDE_SETTINGS, installIntegrations, integrationOfTemp, integrationsFor, integrationText, OPENCODE_PLUGIN, opencodePlugin, removeIntegrations } from './fence/fence-integrations.js';
export { FenceConfigSchema } from './config-schema.js';
export { FenceLogSchema, FenceRulesSchema } from './runs/run-record.js';
export type { FenceExtension, FenceLog, FenceRefusal, FenceRules } from './runs/run-record.js';
export { CACHE_DIR, dropCachesChangedDuring } from './harvest/cache-written.js';
export { removeDeadSocket } from './fence/fence-server.js';
export { findStrays, runStrays, stopStrays, ticksAt, type Stray } from './runs/stray-processes.js';
