/**
 * The lease store the config chooses (`leases.backend`, `leases.journal`, `leases.remote`,
 * `leases.ref`, `leases.clockSkew`), and its backend: what `waves lease`, `plan`, `dispatch`,
 * `status` and `stop` use.
 */
import { DEFAULT_JOURNAL, openLeaseBackend, resolveLeaseStore, type LeaseBackend, type LeaseStore } from '@waves/dispatch';
import { ConfigError } from '@waves/planner';
import { durationOf } from '../args.js';
import { configPath } from './config-paths.js';
import type { LoadedConfig } from './load-config.js';

export interface ConfiguredLeases {
  journal: string;
  store: LeaseStore;
  backend: LeaseBackend;
}

export async function configuredLeases(loaded: LoadedConfig, root: string, now: () => Date): Promise<ConfiguredLeases> {
  const leases = loaded.config.leases;
  const journal = await configPath(loaded, root, 'leases.journal', leases?.journal ?? DEFAULT_JOURNAL);
  const skew = leases?.clockSkew;
  const skewMs = skew === undefined ? undefined : /^0+(?:ms|s|m|h|d)$/.test(skew) ? 0 : durationOf(skew, { configKey: 'leases.clockSkew' });
  if (leases?.backend !== 'git' && (leases?.remote !== undefined || leases?.ref !== undefined || skew !== undefined)) {
    throw new ConfigError(`config ${loaded.shown}: leases.remote, leases.ref and leases.clockSkew are the git backend's; set leases.backend to "git" (or remove them)`);
  }
  const store = await resolveLeaseStore(root, journal, { backend: leases?.backend, remote: leases?.remote, ref: leases?.ref, skewMs, personal: loaded.explicit });
  return { journal, store, backend: openLeaseBackend(store, now) };
}
