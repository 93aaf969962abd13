/**
 * Import edges from an independent judge, for `waves backtest --truth-graph FILE`: the JSON that
 * `dependency-cruiser --output-type json` prints (`modules[].dependencies[].resolved`), or that
 * `waves graph --json --edges` prints (`edges[]`, from this or another version of waves). The
 * format is told by its shape. Third-party modules, Node built-ins and what did not resolve are
 * not edges between repository files, so they are left out. Pure: the caller reads the file.
 */
import { z } from 'zod';
import type { RepoPath } from '../types.js';
import { problemsOf } from '../schema/schema-errors.js';

export type TruthGraphFormat = 'dependency-cruiser' | 'waves-graph';

export interface TruthEdges {
  format: TruthGraphFormat;
  /** `[from, to]`: `from` imports `to`, repository-relative paths. */
  edges: [RepoPath, RepoPath][];
}

const DependencyCruiserSchema = z.object({
  modules: z.array(
    z.object({
      source: z.string(),
      coreModule: z.boolean().optional(),
      couldNotResolve: z.boolean().optional(),
      dependencies: z.array(
        z.object({
          resolved: z.string(),
          coreModule: z.boolean().optional(),
          couldNotResolve: z.boolean().optional(),
        }),
      ),
    }),
  ),
});

const WavesGraphSchema = z.object({
  edges: z.array(z.object({ from: z.string(), to: z.string() })),
});

/** A path as the tools write it, made repository-relative and POSIX; null for what lies outside. */
function repoPath(path: string): RepoPath | null {
  const posix = path.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
  if (posix === '' || posix.startsWith('/') || posix.startsWith('../') || /(?:^|\/)node_modules\//.test(posix)) return null;
  return posix;
}

function firstProblem(error: z.ZodError): string {
  const [first] = problemsOf(error);
  return first ? `${first.path}: ${first.message}` : 'unexpected shape';
}

export function truthEdgesFromJson(value: unknown): { ok: true; value: TruthEdges } | { ok: false; message: string } {
  const shape = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  if (shape && 'modules' in shape) {
    const parsed = DependencyCruiserSchema.safeParse(value);
    if (!parsed.success) return { ok: false, message: `not dependency-cruiser's JSON output: ${firstProblem(parsed.error)}` };
    const edges: [RepoPath, RepoPath][] = [];
    for (const module of parsed.data.modules) {
      const from = repoPath(module.source);
      if (from === null || module.coreModule || module.couldNotResolve) continue;
      for (const dep of module.dependencies) {
        const to = dep.coreModule || dep.couldNotResolve ? null : repoPath(dep.resolved);
        if (to !== null && to !== from) edges.push([from, to]);
      }
    }
    return { ok: true, value: { format: 'dependency-cruiser', edges } };
  }
  if (shape && 'edges' in shape) {
    const parsed = WavesGraphSchema.safeParse(value);
    if (!parsed.success) return { ok: false, message: `not the output of waves graph --json --edges: ${firstProblem(parsed.error)}` };
    const edges: [RepoPath, RepoPath][] = [];
    for (const edge of parsed.data.edges) {
      const from = repoPath(edge.from);
      const to = repoPath(edge.to);
      if (from !== null && to !== null && from !== to) edges.push([from, to]);
    }
    return { ok: true, value: { format: 'waves-graph', edges } };
  }
  if (shape && 'files' in shape && 'imports' in shape) {
    return { ok: false, message: 'a waves graph report without its edges: make it with waves graph --json --edges' };
  }
  return { ok: false, message: 'neither dependency-cruiser --output-type json nor waves graph --json --edges output (no "modules" or "edges")' };
}
