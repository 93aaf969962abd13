/**
 * What `waves graph` reports about a repository's import graph: sizes (source files and imported
 * JSON files apart), edges by kind, what did not resolve, the workspace packages and how they
 * depend on each other, the hubs and barrels.
 * Pure: a summary of a graph already built.
 */
import { z } from 'zod';
import type { ImportKind, RepoGraph, WorkspacePackage } from '../types.js';
import { isJsonModule } from './graph-files.js';
import { DEFAULT_HUB_MIN_DEPENDENTS, DEFAULT_HUB_THRESHOLD, findHubs, isBarrel } from './dependents.js';

export const GRAPH_REPORT_VERSION = 1 as const;

const KINDS = ['static', 'type', 'dynamic', 'require', 'reexport'] as const;

export const GraphReportSchema = z.object({
  schemaVersion: z.literal(GRAPH_REPORT_VERSION),
  root: z.string(),
  head: z.string().nullable(),
  files: z.number().int().min(0).describe('Source files (nodes)'),
  jsonFiles: z.number().int().min(0).default(0).describe('JSON files some source imports (nodes too; other JSON files are not)'),
  imports: z.number().int().min(0).describe('Importing pairs (edges)'),
  edgesByKind: z.record(z.enum(KINDS), z.number().int().min(0)).describe('Edges counted once per kind they carry'),
  external: z.number().int().min(0).describe('Imports of third-party packages and assets'),
  unresolved: z.array(z.object({ from: z.string(), specifier: z.string() })),
  skipped: z.array(z.object({ file: z.string(), reason: z.string() })).describe('Files not read: a link out of the repository, not a regular file, too large'),
  packages: z.array(
    z.object({ name: z.string(), dir: z.string(), files: z.number().int().min(0), dependsOn: z.array(z.string()) }),
  ),
  hubs: z
    .array(z.object({ file: z.string(), dependents: z.number().int(), fanIn: z.number().int(), barrel: z.boolean() }))
    .describe('Files more than a share of the repository depends on, directly or not (dependents) and directly (fanIn): information, serial only when the config opts in with "hubs"'),
  barrels: z.array(z.string()),
  edges: z.array(z.object({ from: z.string(), to: z.string(), kind: z.enum(KINDS) })).optional(),
});

export type GraphReport = z.infer<typeof GraphReportSchema>;

export interface SummarizeOptions {
  root: string;
  head: string | null;
  packages: readonly WorkspacePackage[];
  hubThreshold?: number;
  hubMinDependents?: number;
  /** Most hubs listed (default 20). */
  topHubs?: number;
  /** Include every edge (`--edges`). */
  edges?: boolean;
}

export function summarizeGraph(graph: RepoGraph, options: SummarizeOptions): GraphReport {
  const edgesByKind = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ImportKind, number>;
  const packageFiles = new Map<string, number>();
  const packageDeps = new Map<string, Set<string>>();
  let jsonFiles = 0;
  graph.forEachNode((file, attrs) => {
    if (isJsonModule(file)) jsonFiles++;
    if (attrs.package !== null) packageFiles.set(attrs.package, (packageFiles.get(attrs.package) ?? 0) + 1);
  });
  graph.forEachEdge((_e, attrs, _from, _to, fromAttrs, toAttrs) => {
    for (const kind of attrs.kinds) edgesByKind[kind]++;
    if (fromAttrs.package !== null && toAttrs.package !== null && fromAttrs.package !== toAttrs.package) {
      let deps = packageDeps.get(fromAttrs.package);
      if (!deps) packageDeps.set(fromAttrs.package, (deps = new Set()));
      deps.add(toAttrs.package);
    }
  });
  const hubs = findHubs(graph, options.hubThreshold ?? DEFAULT_HUB_THRESHOLD, options.hubMinDependents ?? DEFAULT_HUB_MIN_DEPENDENTS).slice(0, options.topHubs ?? 20);
  const barrels = graph.filterNodes((file) => isBarrel(graph, file)).sort();
  const report: GraphReport = {
    schemaVersion: GRAPH_REPORT_VERSION,
    root: options.root,
    head: options.head,
    files: graph.order - jsonFiles,
    jsonFiles,
    imports: graph.size,
    edgesByKind,
    external: graph.getAttribute('external'),
    skipped: [...(graph.getAttribute('skipped') ?? [])],
    unresolved: [...graph.getAttribute('unresolved')].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.specifier < b.specifier ? -1 : 1)),
    packages: [...options.packages]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((p) => ({ name: p.name, dir: p.dir, files: packageFiles.get(p.name) ?? 0, dependsOn: [...(packageDeps.get(p.name) ?? [])].sort() })),
    hubs: hubs.map(({ file, dependents, fanIn, barrel }) => ({ file, dependents, fanIn, barrel })),
    barrels,
  };
  if (options.edges) {
    report.edges = graph
      .mapEdges((_e, attrs, from, to) => ({ from, to, kind: attrs.kind }))
      .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  }
  return report;
}
