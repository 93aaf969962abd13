import { expect } from 'vitest';
import { verifyPlan, type Plan, type PlanInput, type RepoPath } from '@waves/planner';

/** Root files, as the tests understand them (written independently): no two issues of a wave touch them. */
export function isRootFilePath(path: string): boolean {
  return (
    path === 'package.json' ||
    path === 'pnpm-workspace.yaml' ||
    /^tsconfig[^/]*\.json$/.test(path) ||
    path.startsWith('.github/') ||
    path === '.github/' ||
    path.startsWith('.ci/') ||
    /(^|\/)(pnpm-lock\.yaml|package-lock\.json|yarn\.lock|npm-shrinkwrap\.json|bun\.lockb?)$/.test(path)
  );
}

/** Two plan paths overlap: equal, or one is a directory (`x/`) containing the other. */
export function pathsOverlap(p: string, q: string): boolean {
  if (p === q) return true;
  if (p.endsWith('/') && q.startsWith(p)) return true;
  if (q.endsWith('/') && p.startsWith(q)) return true;
  return false;
}

export function expand(paths: readonly string[], files: readonly RepoPath[]): Set<RepoPath> {
  const out = new Set<RepoPath>();
  for (const p of paths) {
    if (p.endsWith('/')) {
      for (const f of files) if (f.startsWith(p)) out.add(f);
    } else out.add(p);
  }
  return out;
}

/** Brute force: does any file of `a` reach a file of `b` in 1..depth hops of the edge list? */
export function reaches(a: Set<RepoPath>, b: Set<RepoPath>, edges: readonly (readonly [RepoPath, RepoPath])[], depth: number): boolean {
  let frontier = new Set(a);
  const seen = new Set<RepoPath>();
  for (let d = 0; d < depth; d++) {
    const next = new Set<RepoPath>();
    for (const [from, to] of edges) if (frontier.has(from) && !seen.has(to)) next.add(to);
    for (const f of next) {
      seen.add(f);
      if (b.has(f) && !a.has(f)) return true;
    }
    frontier = next;
  }
  return false;
}

/** Every pair of a wave, checked by brute force against the plan's paths and the literal edges. */
export function conflictingPairs(plan: Plan, files: readonly RepoPath[], edges: readonly (readonly [RepoPath, RepoPath])[], depth: number): string[] {
  const found: string[] = [];
  for (const wave of plan.waves) {
    for (const x of wave.issues) {
      for (const y of wave.issues) {
        if (x.number >= y.number) continue;
        if (x.paths.some((p) => y.paths.some((q) => pathsOverlap(p, q)))) found.push(`path #${x.number}/#${y.number}`);
        const fx = expand(x.paths, files);
        const fy = expand(y.paths, files);
        if (depth > 0 && (reaches(fx, fy, edges, depth) || reaches(fy, fx, edges, depth))) found.push(`import #${x.number}/#${y.number}`);
        if (x.dependsOn.includes(y.number) || y.dependsOn.includes(x.number)) found.push(`dependency #${x.number}/#${y.number}`);
      }
    }
  }
  return found;
}

/** The shared assertion of every planner test: the plan passes the independent verifier. */
export function assertValidPlan(plan: Plan, input: PlanInput): void {
  expect(verifyPlan(plan, input)).toEqual([]);
  const numbers = [
    ...plan.waves.flatMap((w) => w.issues.map((i) => i.number)),
    ...plan.subdivide.map((i) => i.number),
    ...plan.triage.map((i) => i.number),
    ...plan.held.map((i) => i.number),
    ...plan.deferred.map((i) => i.number),
  ];
  expect(new Set(numbers).size).toBe(numbers.length);
  expect(numbers.length).toBe(plan.summary.evaluated);
  for (const wave of plan.waves) {
    expect(wave.issues.length).toBeGreaterThan(0);
    expect(wave.issues.length).toBeLessThanOrEqual(plan.options.waveSize);
    expect(wave.issues.filter((i) => i.paths.some(isRootFilePath)).length).toBeLessThanOrEqual(1);
  }
  expect(plan.waves.length).toBeLessThanOrEqual(plan.options.maxWaves);
}
