import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../packages/planner/src', import.meta.url));

/** The planner's adapters: the only modules allowed to touch the file system, git or processes. */
const ADAPTERS = new Set([
  'graph/list-files.ts',
  'graph/git-run.ts',
  'graph/git-inputs.ts',
  'graph/read-workspace.ts',
  'graph/build-repo-graph.ts',
  'graph/load-repo.ts',
  'graph/module-resolver.ts',
  'graph/graph-cache.ts',
  'graph/symbols-cache.ts',
  'graph/scan-pool.ts',
  'graph/scan-worker.ts',
  'graph/read-repo-file.ts',
  'graph/files-to-read.ts',
  'graph/tsconfig-chain.ts',
  'graph/read-regular-file.ts',
  'graph/read-history-prior.ts',
  'graph/cache-temps.ts',
]);

const FORBIDDEN: [RegExp, string][] = [
  [/from ['"](?:node:)?fs(?:\/promises)?['"]/, 'imports fs'],
  [/from ['"](?:node:)?child_process['"]/, 'imports child_process'],
  [/from ['"]execa['"]/, 'imports execa'],
  [/\bconsole\./, 'uses console'],
  [/\bprocess\./, 'uses process'],
  [/Date\.now\(|new Date\(\)/, 'reads the clock'],
  [/Math\.random\(/, 'uses randomness'],
];

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.relative(SRC, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

describe('the planner core is pure', () => {
  it('never touches the file system, processes, the console or the clock outside its adapters', async () => {
    const offenders: string[] = [];
    for (const file of await sources(SRC)) {
      if (ADAPTERS.has(file)) continue;
      const text = await readFile(path.join(SRC, file), 'utf8');
      for (const [pattern, what] of FORBIDDEN) if (pattern.test(text)) offenders.push(`${file} ${what}`);
    }
    expect(offenders).toEqual([]);
  });

  it('never imports the dispatch or cli packages', async () => {
    for (const file of await sources(SRC)) {
      const text = await readFile(path.join(SRC, file), 'utf8');
      expect(text, file).not.toMatch(/@waves\/(?:dispatch|cli)/);
    }
  });

  it('keeps paths/ below every stage and the graph below scope: neither imports from a later stage', async () => {
    const offenders: string[] = [];
    for (const file of await sources(SRC)) {
      if (!file.startsWith('paths/') && !file.startsWith('graph/')) continue;
      const text = await readFile(path.join(SRC, file), 'utf8');
      const allowed = file.startsWith('paths/') ? ['paths/'] : ['paths/', 'graph/'];
      for (const [, target] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom ['"](\.{1,2}\/[^'"]+)['"]/gm)) {
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target!));
        if (resolved !== 'types.js' && resolved !== 'errors.js' && !allowed.some((dir) => resolved.startsWith(dir))) offenders.push(`${file} imports ${resolved}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
