/**
 * Globs are a repository's text (workspace globs, a config's serial paths and lanes): the shapes
 * whose regular expression backtracks are refused, with the reason, before anything is matched.
 */
import { describe, expect, it } from 'vitest';
import { GlobError, globMatcher, globProblem, loadRepo } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

describe('globs', () => {
  it('refuses the shapes that backtrack (many stars in a segment, many globstars, a huge glob) and takes the usual ones', () => {
    const redos = `${'*a'.repeat(16)}b`;
    expect(globProblem(redos)).toMatch(/more than 2 `\*` in one path segment/);
    expect(() => globMatcher(redos)).toThrow(GlobError);
    expect(globProblem('**/**/**/**/x')).toMatch(/more than 3 `\*\*` segments/);
    expect(globProblem('x'.repeat(2000))).toMatch(/longer than 1024 characters/);
    for (const ok of ['packages/*', 'apps/**', '**/*.config.*', 'src/**/__tests__/**', 'tsconfig*.json', '**/*.{ts,tsx}', '.github/**', 'db/schema.ts']) {
      expect(globProblem(ok), ok).toBeNull();
    }
    expect(globMatcher('**/*.config.*')('packages/a/vite.config.ts')).toBe(true);
    expect(globMatcher('tsconfig*.json')('tsconfig.base.json')).toBe(true);
    // Extglobs are plain characters: `+(a|b)` names that very folder.
    expect(globMatcher('packages/+(a|b)')('packages/a')).toBe(false);
  });

  it('skips a workspace glob that would backtrack, naming the file, and reads the rest of the workspace', async () => {
    const repo = await TempRepo.create({
      'package.json': JSON.stringify({ name: 'root', private: true }),
      'pnpm-workspace.yaml': `packages:\n  - "packages/*"\n  - "${'*a'.repeat(16)}b"\n`,
      'packages/x/package.json': JSON.stringify({ name: 'x' }),
      'packages/x/src/index.ts': "export const x = 1;\n",
      [`${'a'.repeat(60)}/package.json`]: JSON.stringify({ name: 'a' }),
    });
    try {
      const index = await loadRepo(repo.root, { cache: false });
      expect(index.packages.map((p) => p.name).sort()).toEqual(['root', 'x']);
      const skipped = index.graph.getAttribute('skipped') ?? [];
      expect(skipped.map((s: { file: string; reason: string }) => `${s.file}: ${s.reason}`).join('\n')).toMatch(/pnpm-workspace\.yaml: .*workspace glob .* is not read: more than 2 `\*` in one path segment/);
    } finally {
      await repo.dispose();
    }
  }, 30_000);
});
