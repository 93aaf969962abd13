/**
 * @waves/planner — backlog → scope → conflicts → waves, plus the repository import graph.
 * Everything here is pure except the adapters marked so (they read files and run git).
 */
export { analyzePlan, planWaves, resolvePlanOptions, scopeOptionsFor, summaryLine } from './plan.js';
export type { PlanAnalysis, PlanInput } from './plan.js';
export { verifyPlan } from './verify/verify-plan.js';
export { CLOCK_SKEW_MS, foldLeases, IsoInstant, JournalHeaderSchema, JournalSealSchema, lanesOverlap, LeaseEventSchema, MAX_JOURNAL_HEADER_BYTES, MAX_LEASE_TTL_MS } from './leases/fold-leases.js';
export { INVISIBLE_CLASS, invisibleExcept } from './text/invisible.js';
export { decideAcquire, decideLeases, heldLeases, leasePathOf } from './leases/decide-lease.js';
export type { AcquireDecision, HeldLease, LeaseRefusalReason, LeaseRules, LeaseVerdict } from './leases/decide-lease.js';
export { canonicalLane, checkLane, checkPathSpelling, WHOLE_REPOSITORY } from './leases/canonical-lane.js';
export { holderProblem, MAX_HOLDER_LENGTH } from './leases/lease-holder.js';
export type { LaneCheck } from './leases/canonical-lane.js';
export type { JournalSeal, Lease, LeaseEvent } from './leases/fold-leases.js';
export { DEFAULT_TIER, routeTier } from './classify/route-tier.js';
export type { RoutingRules, TierChoice } from './classify/route-tier.js';
export { explainIssue, IssueExplanationSchema } from './explain/explain-issue.js';
export { compareWithBaseline, ComparisonSchema } from './compare/compare-baseline.js';
export type { CompareInput, Comparison } from './compare/compare-baseline.js';
export type { IssueExplanation } from './explain/explain-issue.js';
export type { PlanViolation } from './verify/verify-plan.js';
export { runBacktest } from './backtest/run-backtest.js';
export type { BacktestInput } from './backtest/run-backtest.js';
export { backlogFromCommits, commitNumber, isCodeFile, isLeftOut, isTestFile, SKIP_REASONS, subjectNumber } from './backtest/backlog-from-commits.js';
export type { ChangedFile, CommitBacklog, CommitIssue, FileChange, HistoryCommit, SkippedCommit, SkipReason } from './backtest/backlog-from-commits.js';
export { BACKTEST_GRADES, toBacklogIssue, writeIssueBody } from './backtest/issue-body.js';
export type { BacktestGrade } from './backtest/issue-body.js';
export { findTrueConflicts, pairKey } from './backtest/true-conflicts.js';
export type { TrueConflict, TruthBase, TruthEvidence, TruthKind } from './backtest/true-conflicts.js';
export { referenceWaves } from './backtest/reference-waves.js';
export { findViolations } from './backtest/find-violations.js';
export { judgePlan } from './backtest/judge-plan.js';
export type { Judgement, JudgeInput } from './backtest/judge-plan.js';
export type { Violation } from './backtest/find-violations.js';
export { measureRuleEffects, RULE_IDS } from './backtest/rule-effects.js';
export type { RuleEffect, RuleEffectsInput, RuleId } from './backtest/rule-effects.js';
export { truthEdgesFromJson } from './backtest/truth-edges.js';
export { bm25Baseline, pathWords } from './backtest/bm25-baseline.js';
export type { Bm25Query } from './backtest/bm25-baseline.js';
export { calibration, fencePath, fenceRecall, firstHit, locatableFiles, localisationFigures, pathsAtBase, rankedFiles } from './backtest/localisation.js';
export type { AccuracyAtK, FenceCase, FenceRecall, LocalisationCase, LocalisationFigures } from './backtest/localisation.js';
export { holderOf, simulateLiveFences } from './backtest/live-fences.js';
export { judgeReports, REPORT_EVIDENCE_KINDS } from './backtest/judge-reports.js';
export type { IssueReport, JudgedReport, ReportEvidenceKind, ReportsJudgement } from './backtest/judge-reports.js';
export type { DecideLeases, FenceCollision, FenceEvent, FenceOutcome, LiveFenceInput, LiveFenceReport } from './backtest/live-fences.js';
export type { TruthEdges, TruthGraphFormat } from './backtest/truth-edges.js';
export { BacktestLiveFencesSchema, BacktestLocalisationSchema, BacktestReportSchema, BacktestRuleSchema, BACKTEST_SCHEMA_VERSION } from './schema/backtest-schema.js';
export type { BacktestLiveFences, BacktestLocalisation, BacktestReport, BacktestRule } from './schema/backtest-schema.js';

export { parseIssues, IssuesFileSchema, IssueRecordSchema, isPullRequest, cutText, MAX_TITLE_CHARS, MAX_BODY_CHARS } from './schema/issues-schema.js';
export type { IssueRecord } from './schema/issues-schema.js';
export { MAX_TOP, PlanOptionsSchema } from './schema/options-schema.js';
export type { PlanOptions, PlanOptionsInput } from './schema/options-schema.js';
export { CandidateSchema, EvidenceKindSchema, EvidenceSchema, PlanSchema, PlanIssueSchema, WaveSchema, PLAN_SCHEMA_VERSION } from './schema/plan-schema.js';
export type { Candidate, ConflictKind, Evidence, EvidenceKind, Plan, PlanConflict, PlanIssue, Wave } from './schema/plan-schema.js';
export { jsonPath } from './schema/schema-errors.js';
export { firstJsonError, parseJsonText } from './schema/parse-json-text.js';
export type { JsonText } from './schema/parse-json-text.js';
export type { Parsed, SchemaProblem } from './schema/schema-errors.js';

export { rankIssues, selectIssues } from './backlog/select-issues.js';
export { inferRepoSlug } from './backlog/infer-repo-slug.js';
export { labelRank, priorityLabel, priorityRank } from './backlog/priority.js';

export { extractScope, isDirectoryLeaf } from './scope/extract-scope.js';
export { resolvePath } from './scope/resolve-path.js';
export { isCompanionPath, isWiringPath } from './scope/companion-paths.js';
export type { Resolution, ResolveOptions } from './scope/resolve-path.js';
export type { IssueScope, LeafKind, ScopeEvidence, ScopeLeaf, ScopeNote, ScopeOptions, ScopeSource } from './scope/extract-scope.js';
export { extractMentions } from './scope/extract-mentions.js';
export { checkPathToken } from './scope/path-token.js';
export { parseGithubFileUrl } from './scope/github-file-url.js';
export type { IssueMentions, PathMention, RootMention } from './scope/extract-mentions.js';
export { createRepoTree } from './scope/repo-tree.js';
export { baseName, containsPath, normalisePattern, parentDir } from './paths/repo-paths.js';
export type { RepoTree } from './scope/repo-tree.js';
export { categoryFromLabel, laneFromLabel, resolveLaneName } from './scope/resolve-lane.js';
export { isControlFile, isUnnamedControlFile, UNNAMED_CONTROL_FILE } from './scope/control-files.js';
export { BUILTIN_SERIAL_GLOBS, matchSerial, ROOT_FILE_GLOBS, rootFileOf, rootFilesOf } from './scope/serial-paths.js';
export { hubRuleOf, matchHub } from './scope/hub-paths.js';
export type { HubOptions, HubRule } from './scope/hub-paths.js';
export { DEFAULT_HUB_MIN_DEPENDENTS, DEFAULT_HUB_THRESHOLD, dependentCounts, describeHub, findHubs, isBarrel, stronglyConnected } from './graph/dependents.js';
export type { Hub, HubMeasure } from './graph/dependents.js';
export { GraphReportSchema, GRAPH_REPORT_VERSION, summarizeGraph } from './graph/summarize-graph.js';
export { dependenciesOf, dependentsOf, fanIn, rollUpGraph } from './graph/graph-queries.js';
export type { GraphReport, SummarizeOptions } from './graph/summarize-graph.js';
export type { SerialMatch } from './scope/serial-paths.js';

export { classifyIssues, dependencyCycles } from './classify/classify-issues.js';
export type { Bucket, Classification } from './classify/classify-issues.js';
export { describeRootFiles, findConflicts, rootFilePairs, serialConflicts } from './conflicts/find-conflicts.js';
export type { Conflict, ConflictUnit } from './conflicts/find-conflicts.js';
export { fenceLabels, leafLabel, rollUpLeaves } from './conflicts/roll-up-leaves.js';
export type { Leaf } from './conflicts/roll-up-leaves.js';
export { partitionWaves } from './waves/partition-waves.js';
export { nextCandidate } from './waves/next-candidate.js';
export type { PartitionProblem, PartitionResult } from './waves/partition-waves.js';

// Adapters: these read the file system and run git.
export { loadRepo, assertDirectory } from './graph/load-repo.js';
export { megabytes, readRegularBytes, readRegularFile, readRegularFileSync } from './graph/read-regular-file.js';
export { readRepoText } from './graph/read-repo-text.js';
export type { RefusalKind, RegularRead, RegularReadOptions } from './graph/read-regular-file.js';
export type { LoadRepoOptions } from './graph/load-repo.js';
export { buildRepoGraph, assembleGraph, IMPORT_KIND_ORDER } from './graph/build-repo-graph.js';
export type { BuildRepoGraphOptions, GraphBuildStats } from './graph/build-repo-graph.js';
export { GRAPH_CACHE_VERSION } from './graph/graph-cache.js';
export { SYMBOLS_CACHE_VERSION } from './graph/symbols-cache.js';
export { filesToRead } from './graph/files-to-read.js';
export type { CheckoutPatterns } from './graph/files-to-read.js';
export { listRepoFiles, SKIPPED_DIRS } from './graph/list-files.js';
export { SAFE_GIT_CONFIG } from './graph/git-options.js';
export { execaGit, gitCommandName, gitTimeoutMs, GitTimeoutError } from './graph/git-run.js';
export type { GitRunOptions, GitRunResult } from './graph/git-run.js';
export { gitInputProblem } from './graph/git-inputs.js';
export type { RepoListing } from './graph/list-files.js';
export { readWorkspace } from './graph/read-workspace.js';
export type { Workspace, WorkspaceMember, WorkspaceProblem } from './graph/read-workspace.js';
export { ModuleResolver } from './graph/module-resolver.js';
export { isJsonModule, isSourceFile } from './graph/graph-files.js';
export { packageName } from './graph/package-exports.js';
export { readImports, scanImports, type ImportReading } from './graph/scan-imports.js';
export type { ScannedImport } from './graph/scan-imports.js';

export { ConfigError, InputError, WavesError } from './errors.js';
export type {
  ActiveLease,
  BacklogIssue,
  FileNodeAttributes,
  Granularity,
  ImportEdgeAttributes,
  ImportKind,
  IssueNumber,
  RepoGraph,
  RepoGraphAttributes,
  RepoIndex,
  FileSymbols,
  PastCommit,
  RepoPath,
  UnresolvedImport,
  WorkspacePackage,
} from './types.js';
export { auditFence, fenceWithCompanions, inFence, isRootFile, touchedPaths } from './harvest/audit-fence.js';
export type { ChangedPath, ChangeKind, FenceAudit } from './harvest/audit-fence.js';
export { finishAccuracy, SCOPE_SOURCES, scopeAccuracy, sumAccuracy } from './harvest/scope-accuracy.js';
export type { Accuracy, AccuracySums, PredictedLeaf, RunAccuracy, Tally } from './harvest/scope-accuracy.js';
export { GlobError, globMatcher, globProblem, isGlob } from './paths/globs.js';

// Scope inference (issues that name no files): evidence, index, candidates, fences.
export { gluedName, holedMatch, inferCandidates, INFER_WEIGHTS, MAX_CANDIDATES, messageTokens } from './infer/infer-candidates.js';
export { fileRole, rolesNamed } from './infer/file-roles.js';
export type { FileRole } from './infer/file-roles.js';
export type { InferOptions } from './infer/infer-candidates.js';
export { buildInferenceIndex, inferenceIndexOf, isCandidateFile } from './infer/inference-index.js';
export type { InferenceIndex } from './infer/inference-index.js';
export { readIssueSignals, conventionalPrefix } from './infer/issue-signals.js';
export type { IssueSignals } from './infer/issue-signals.js';
export { AREA_FLOOR, areaFence, confidencePercent, describeEvidence, fenceCompanions, inferredFence, LIKELY, likelyText, MENTION, strongCandidates, SURE } from './infer/inferred-fence.js';
export { inferScopes } from './infer/infer-scopes.js';
export { scanSymbols } from './graph/scan-symbols.js';
export { contentWords, MAX_CONTENT_WORDS, packWords, unpackWords } from './graph/text-tokens.js';
export { readHistoryPrior, parsePriorLog, MAX_PRIOR_COMMITS } from './graph/read-history-prior.js';
