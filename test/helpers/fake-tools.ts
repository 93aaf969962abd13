import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './example-repo.js';

export const FAKE_TOOL = path.join(ROOT, 'test/fixtures/agents/fake-tool.mjs');

/** What a fake tool recorded of one call (test/fixtures/agents/fake-tool.mjs). */
export interface ToolCall {
  name: string;
  argv: string[];
  cwd: string;
  opencodeConfig: string | null;
  run: string | null;
  token: boolean;
  sawMarker: boolean;
  husky: string | null;
  pid: number;
}

/**
 * A folder of executables named like the real programs (`claude`, `pnpm`…), each a wrapper that
 * runs the fake tool under that name; with `env(trace)`, the PATH that finds them first.
 */
export function fakeTools(dir: string, names: readonly string[]) {
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\nexec '${process.execPath}' '${FAKE_TOOL}' ${name} "$@"\n`);
    chmodSync(file, 0o755);
  }
  return {
    env: (trace: string, extra: Record<string, string> = {}): Record<string, string> => ({ PATH: `${dir}:${process.env.PATH ?? ''}`, FAKE_TOOL_TRACE: trace, ...extra }),
    calls: (trace: string): ToolCall[] => (existsSync(trace) ? readFileSync(trace, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as ToolCall) : []),
  };
}
