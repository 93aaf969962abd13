import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { TempRepo } from './temp-repo.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'packages/cli/bin/waves.js');
export const FAKE_AGENT = path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs');

/** The fake agent as a config agent: `node fake-agent.mjs --issue N PROMPT`. */
export const FAKE_AGENT_CONFIG = { fake: { command: [process.execPath, FAKE_AGENT, '--issue', '{number}', '{prompt}'] } };

/** Where the CLI seals run records in tests: the run's temporary state directory (test/setup/state-dir.ts). */
export const TEST_STATE_DIR = process.env.WAVES_STATE_DIR ?? path.join(tmpdir(), `waves-state-${process.pid}`);

/** Runs the built CLI, stdin closed, never throwing on a non-zero exit; never with the real state directory. */
export function waves(args: string[], cwd = ROOT, env: Record<string, string> = {}) {
  return execa(process.execPath, [BIN, ...args], { cwd, reject: false, stdin: 'ignore', env: { WAVES_STATE_DIR: TEST_STATE_DIR, ...env } });
}

/**
 * A git repository holding a copy of the example (examples/shop with backlog.json and a config:
 * the example's own, `serial` for its TypeScript upgrade, with the test's keys over it). The live
 * fence is off unless the test's config turns it on (`fence`): the other tests witness what harvest
 * finds on its own, and a watcher granting an agent's out-of-fence file would change that.
 */
export async function exampleRepo(config: object): Promise<TempRepo> {
  const repo = await TempRepo.create({ 'README.md': '# x\n' });
  cpSync(path.join(ROOT, 'examples/shop'), repo.root, { recursive: true, filter: (source) => !source.includes('/.waves') });
  writeFileSync(path.join(repo.root, 'backlog.json'), readFileSync(path.join(ROOT, 'examples/backlog.json'), 'utf8'));
  const own = JSON.parse(readFileSync(path.join(ROOT, 'examples/shop/waves.config.json'), 'utf8')) as object;
  writeFileSync(path.join(repo.root, 'waves.config.json'), JSON.stringify({ ...own, fence: { live: false }, ...config }));
  await repo.git('add', '-A');
  await repo.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'example');
  return repo;
}
