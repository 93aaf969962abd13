/**
 * @waves/cli as a library: the command line's entry point, its renderers, the config schema and
 * loader. The bin loads `main.js` alone, so that a command never loads what it does not use.
 */
export { main, MAIN_HELP } from './main.js';
export { renderPlanTable } from './render/plan-table.js';
export { renderPlanJson } from './render/plan-json.js';
export { renderPlanMarkdown, markdownCell } from './render/plan-markdown.js';
export { renderPlanMermaid, mermaidText } from './render/plan-mermaid.js';
export { renderExplanation } from './render/explanation.js';
export { renderGraphDot, renderGraphMermaid, renderGraphTable } from './render/graph-report.js';
export { safeText } from './render/safe-text.js';
export { ConfigSchema } from './config/config-schema.js';
export type { WavesConfig } from './config/config-schema.js';
export { loadConfig, planOptionsFromConfig } from './config/load-config.js';
export { repoFromRemote } from './sources/github-remote.js';
export type { CliIo } from './io.js';
export { fetchWithTimeout } from './sources/github-fetch.js';
