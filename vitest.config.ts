import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources; the CLI end-to-end tests run the built bin.
    alias: {
      '@waves/planner': src('planner'),
      // Before '@waves/dispatch' (the first alias that matches wins): the same module as the index's.
      '@waves/dispatch/token-holder': fileURLToPath(new URL('./packages/dispatch/src/runs/token-holder.ts', import.meta.url)),
      '@waves/dispatch/fence-client': fileURLToPath(new URL('./packages/dispatch/src/fence/fence-client.ts', import.meta.url)),
      '@waves/dispatch': src('dispatch'),
      '@waves/cli': src('cli'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Run records are sealed in waves' state directory: a temporary one, never the real home.
    globalSetup: ['test/setup/state-dir.ts'],
  },
});
