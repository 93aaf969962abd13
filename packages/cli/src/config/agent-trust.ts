/**
 * Which config may hand an agent the GitHub token. `agents.<name>.env` naming GITHUB_TOKEN,
 * GH_TOKEN, GITHUB_ENTERPRISE_TOKEN or GH_ENTERPRISE_TOKEN passes the user's token to a process
 * whose command, for a custom agent, the same config chose. A repository's own waves.config.json
 * travels with a clone, so it is the repository's word: it may not do that. A config the user
 * names with --config is the user's own, and may — as with `defaults.apiUrl` (api-url.ts) and the
 * paths a config names (config-paths.ts), the user's word and the repository's are told apart by
 * `LoadedConfig.explicit`.
 */
import { permissionsWidening, TOKEN_VARIABLES, type AgentTemplate } from '@waves/dispatch';
import { ConfigError } from '@waves/planner';
import type { LoadedConfig } from './load-config.js';

/** Throws a one-line `ConfigError` when a repository's own config passes a token to the agent about to run. */
export function checkTokenPassThrough(loaded: LoadedConfig, agent: AgentTemplate): void {
  if (loaded.explicit) return;
  const token = (agent.env ?? []).find((name) => (TOKEN_VARIABLES as readonly string[]).includes(name));
  if (token === undefined) return;
  throw new ConfigError(
    `config ${loaded.shown}: agents.${agent.name}.env names ${token}: a repository's own config cannot pass a GitHub token to an agent; put the setting in a config of your own and name it with --config FILE`,
  );
}

/**
 * Throws a one-line `ConfigError` when a repository's own config widens what the preset about to
 * run may do (`agents.<name>.permissions`): an agent could commit such a config, and the next run
 * would start with the permissions it chose. A config named with --config is the person's own.
 */
export function checkPermissionWidening(loaded: LoadedConfig, agent: AgentTemplate): void {
  if (loaded.explicit) return;
  const agents = loaded.config.agents ?? {};
  const permissions = Object.hasOwn(agents, agent.name) ? agents[agent.name]!.permissions : undefined;
  const widening = permissionsWidening(agent.name, permissions);
  if (widening === null) return;
  throw new ConfigError(
    `config ${loaded.shown}: ${widening} widens what the agent may do: a repository's own config cannot (an agent could commit one for the next run); put the setting in a config of your own and name it with --config FILE`,
  );
}

/** The fewest bytes of each log a repository's own config may keep (`logs.maxBytes`); a config of yours may set less. */
export const REPOSITORY_LOG_FLOOR = 64 * 1024;

/**
 * Throws a one-line `ConfigError` when a repository's own config cuts every log below
 * `REPOSITORY_LOG_FLOOR`: the logs are how a person sees what an agent did, and an agent could
 * commit such a config for the next run. (`fence.live: false` from the repository is honoured:
 * see README, Live fences — the harvest's audit does not depend on it.)
 */
export function checkLogFloor(loaded: LoadedConfig): void {
  if (loaded.explicit) return;
  const maxBytes = loaded.config.logs?.maxBytes;
  if (maxBytes === undefined || maxBytes >= REPOSITORY_LOG_FLOOR) return;
  throw new ConfigError(
    `config ${loaded.shown}: logs.maxBytes ${maxBytes} is below ${REPOSITORY_LOG_FLOOR}: a repository's own config cannot cut the logs that far (an agent could commit one for the next run); put the setting in a config of your own and name it with --config FILE`,
  );
}
