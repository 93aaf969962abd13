/**
 * Finds every pair of dispatchable issues that may not share a wave, with evidence:
 * - `path`: the same path, or one contains the other; or both touch root files (the manifests,
 *   lockfiles and shared configuration every package reads: see `ROOT_FILE_GLOBS`);
 * - `import`: a file of one imports a file of the other within `contentionDepth` hops;
 * - `dependency`: one depends on the other;
 * - `serial`: one of them must run alone — listed by `serialConflicts` on demand, since a serial
 *   issue conflicts with every other issue and the pairs would grow with the square of the backlog.
 *
 * NOTE: no pairwise comparison of leaves. Paths are indexed by their ancestors and imports are
 * followed from each issue's files to the owners of what they reach, so the cost grows with the
 * number of leaves and edges, not with the square of the number of issues.
 */
import { chainTo, describeChain, reachImports } from '../graph/graph-queries.js';
import type { ConflictKind } from '../schema/plan-schema.js';
import { parentDir } from '../paths/repo-paths.js';
import type { RepoTree } from '../scope/repo-tree.js';
import type { SerialMatch } from '../scope/serial-paths.js';
import type { IssueNumber, RepoGraph, RepoPath } from '../types.js';
import { leafLabel, type Leaf } from './roll-up-leaves.js';

export interface ConflictUnit {
  number: IssueNumber;
  leaves: readonly Leaf[];
  /** Dispatchable issues this one depends on. */
  dependsOn: readonly IssueNumber[];
  serial: SerialMatch | null;
  /** The root files it touches (`./` when it names the root itself), sorted; empty for most issues. */
  rootFiles: readonly RepoPath[];
}

export interface Conflict {
  /** The smaller issue number. */
  a: IssueNumber;
  b: IssueNumber;
  kind: ConflictKind;
  detail: string;
  /** For `import`: the chain of files from one issue's file to the other's. */
  chain?: RepoPath[];
  /** For `path`: set when the only overlap is that both touch root files (not one same path). */
  rule?: 'root-files';
}

const KIND_ORDER: readonly ConflictKind[] = ['dependency', 'serial', 'path', 'import'];

export function describeSerial(number: IssueNumber, serial: SerialMatch): string {
  if (serial.rule === 'hub') return `#${number} touches a hub and runs alone: ${serial.reason}`;
  return `#${number} touches ${serial.path} (serial path ${serial.rule}) and runs alone`;
}

/** Why two issues touching root files conflict, for people: `both touch root files: package.json (#3), tsconfig.json (#7)`. */
export function describeRootFiles(x: { number: IssueNumber; rootFiles: readonly RepoPath[] }, y: { number: IssueNumber; rootFiles: readonly RepoPath[] }): string {
  const [first, second] = x.number < y.number ? [x, y] : [y, x];
  const files = (unit: typeof x) => `${unit.rootFiles.slice(0, 3).join(', ')}${unit.rootFiles.length > 3 ? ', …' : ''} (#${unit.number})`;
  return `both touch root files: ${files(first)}; ${files(second)}`;
}

/** Pairs of units that both touch root files, as `[smaller, larger]` numbers. */
export function rootFilePairs(units: readonly Pick<ConflictUnit, 'number' | 'rootFiles'>[]): [IssueNumber, IssueNumber][] {
  const rooted = units.filter((u) => u.rootFiles.length > 0).map((u) => u.number).sort((x, y) => x - y);
  const pairs: [IssueNumber, IssueNumber][] = [];
  for (let i = 0; i < rooted.length; i++) for (let j = i + 1; j < rooted.length; j++) pairs.push([rooted[i]!, rooted[j]!]);
  return pairs;
}

/**
 * Conflicts by pair and kind; the first evidence found for a pair and kind is kept.
 *
 * NOTE: a backlog whose issues all touch one file has n²/2 pairs, each met several times (from
 * both sides, through each shared leaf), so pairs are keyed by the issues' positions, not by
 * strings; an issue's kinds per partner are a map while it has few partners and one byte per
 * issue of the backlog once that is smaller. Callers build the evidence text only for a pair not
 * yet listed (`has` first).
 */
class ConflictSet {
  private readonly position: Map<IssueNumber, number>;
  /** By the smaller number: its conflicts, and the kinds listed (bits in KIND_ORDER order) by the other's position. */
  private readonly byA = new Map<IssueNumber, { conflicts: Conflict[]; kinds: Map<number, number> | Uint8Array }>();
  /** `numbers`: every issue a conflict may name. */
  constructor(private readonly numbers: readonly IssueNumber[]) {
    this.position = new Map(numbers.map((n, i) => [n, i]));
  }
  private at(b: IssueNumber): number {
    const i = this.position.get(b);
    if (i === undefined) throw new Error(`conflicts: #${b} is not one of the issues compared`);
    return i;
  }
  has(x: IssueNumber, y: IssueNumber, kind: ConflictKind): boolean {
    const kinds = this.byA.get(Math.min(x, y))?.kinds;
    if (!kinds) return false;
    const i = this.at(Math.max(x, y));
    return (((kinds instanceof Uint8Array ? kinds[i] : kinds.get(i)) ?? 0) & (1 << KIND_ORDER.indexOf(kind))) !== 0;
  }
  add(x: IssueNumber, y: IssueNumber, kind: ConflictKind, detail: string, extra: Pick<Conflict, 'chain' | 'rule'> = {}): void {
    if (x === y) return;
    const a = Math.min(x, y);
    const b = Math.max(x, y);
    let entry = this.byA.get(a);
    if (!entry) this.byA.set(a, (entry = { conflicts: [], kinds: new Map() }));
    const i = this.at(b);
    const bit = 1 << KIND_ORDER.indexOf(kind);
    const { kinds } = entry;
    const old = (kinds instanceof Uint8Array ? kinds[i] : kinds.get(i)) ?? 0;
    if (old & bit) return;
    if (kinds instanceof Uint8Array) kinds[i] = old | bit;
    else {
      kinds.set(i, old | bit);
      // A map entry costs tens of bytes, a byte per issue is cheaper past a sixteenth of them.
      if (kinds.size * 16 > this.numbers.length) {
        const dense = new Uint8Array(this.numbers.length);
        for (const [j, k] of kinds) dense[j] = k;
        entry.kinds = dense;
      }
    }
    entry.conflicts.push({ a, b, kind, detail, ...extra });
  }
  /** Sorted by `a`, `b`, then kind (dependency, serial, path, import). */
  list(): Conflict[] {
    const out: Conflict[] = [];
    for (const a of [...this.byA.keys()].sort((x, y) => x - y)) {
      const conflicts = this.byA.get(a)!.conflicts.sort((p, q) => p.b - q.b || KIND_ORDER.indexOf(p.kind) - KIND_ORDER.indexOf(q.kind));
      for (const conflict of conflicts) out.push(conflict);
    }
    return out;
  }
}

/** Merges two conflict lists sorted by `a`, `b`, then kind: the order `ConflictSet.list` gives. */
export function mergeConflicts(x: readonly Conflict[], y: readonly Conflict[]): Conflict[] {
  const out: Conflict[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const p = x[i]!;
    const q = y[j]!;
    if ((p.a - q.a || p.b - q.b || KIND_ORDER.indexOf(p.kind) - KIND_ORDER.indexOf(q.kind)) <= 0) (out.push(p), i++);
    else (out.push(q), j++);
  }
  while (i < x.length) out.push(x[i++]!);
  while (j < y.length) out.push(y[j++]!);
  return out;
}

/** The `serial` conflicts of the given serial issues with every other unit. */
export function serialConflicts(units: readonly ConflictUnit[], involving: (number: IssueNumber) => boolean): Conflict[] {
  const sorted = [...units].sort((x, y) => x.number - y.number);
  const conflicts = new ConflictSet(sorted.map((u) => u.number));
  for (const unit of sorted) {
    if (!unit.serial) continue;
    const detail = describeSerial(unit.number, unit.serial);
    for (const other of sorted) {
      if (other !== unit && (involving(unit.number) || involving(other.number))) conflicts.add(unit.number, other.number, 'serial', detail);
    }
  }
  return conflicts.list();
}

/** Files of the graph leaves stand for: the file leaves and every file under the directory leaves. */
export function graphFiles(leaves: readonly Leaf[], graph: RepoGraph, tree: RepoTree): RepoPath[] {
  const out = new Set<RepoPath>();
  for (const leaf of leaves) {
    if (leaf.dir) {
      for (const file of tree.filesUnder(leaf.path)) if (graph.hasNode(file)) out.add(file);
    } else if (graph.hasNode(leaf.path)) out.add(leaf.path);
  }
  return [...out].sort();
}

export interface FindConflictsInput {
  units: readonly ConflictUnit[];
  graph: RepoGraph;
  tree: RepoTree;
  contentionDepth: number;
}

export function findConflicts({ units, graph, tree, contentionDepth }: FindConflictsInput): Conflict[] {
  const sorted = [...units].sort((x, y) => x.number - y.number);
  const conflicts = new ConflictSet(sorted.map((u) => u.number));
  const numbers = new Set(sorted.map((u) => u.number));

  // Dependencies and serial issues.
  for (const unit of sorted) {
    for (const dep of unit.dependsOn) if (numbers.has(dep)) conflicts.add(unit.number, dep, 'dependency', `#${unit.number} depends on #${dep}`);
  }

  // Paths: for each leaf, the owners of itself and its ancestors.
  const owners = new Map<RepoPath, { number: IssueNumber; leaf: Leaf }[]>();
  for (const unit of sorted) {
    for (const leaf of unit.leaves) {
      let list = owners.get(leaf.path);
      if (!list) owners.set(leaf.path, (list = []));
      list.push({ number: unit.number, leaf });
    }
  }
  for (const unit of sorted) {
    for (const leaf of unit.leaves) {
      const touched = `both touch ${leafLabel(leaf)}`; // one string for all the pairs it makes
      for (let path: RepoPath | null = leaf.path; path !== null; path = path === '' ? null : parentDir(path)) {
        for (const owner of owners.get(path) ?? []) {
          if (owner.number === unit.number || conflicts.has(unit.number, owner.number, 'path')) continue;
          if (path === leaf.path) conflicts.add(unit.number, owner.number, 'path', touched);
          else if (owner.leaf.dir) conflicts.add(unit.number, owner.number, 'path', `${leafLabel(owner.leaf)} contains ${leafLabel(leaf)}`);
        }
      }
    }
  }

  // Root files: shared by every package, so two issues touching them conflict even on different files.
  const byNumber = new Map(sorted.map((unit) => [unit.number, unit]));
  for (const [x, y] of rootFilePairs(sorted)) {
    if (conflicts.has(x, y, 'path')) continue;
    conflicts.add(x, y, 'path', describeRootFiles(byNumber.get(x)!, byNumber.get(y)!), { rule: 'root-files' });
  }

  // Imports: follow each issue's files forward up to the depth; whoever owns a reached file conflicts.
  if (contentionDepth > 0) {
    const fileOwners = new Map<RepoPath, IssueNumber[]>();
    const dirOwners = new Map<RepoPath, IssueNumber[]>();
    for (const unit of sorted) {
      for (const leaf of unit.leaves) {
        const map = leaf.dir ? dirOwners : fileOwners;
        let list = map.get(leaf.path);
        if (!list) map.set(leaf.path, (list = []));
        list.push(unit.number);
      }
    }
    const ownersOf = (file: RepoPath): IssueNumber[] => {
      const out = [...(fileOwners.get(file) ?? [])];
      for (let dir = parentDir(file); ; dir = parentDir(dir)) {
        out.push(...(dirOwners.get(dir) ?? []));
        if (dir === '') break;
      }
      return out;
    };
    for (const unit of sorted) {
      const reached = reachImports(graph, graphFiles(unit.leaves, graph, tree), contentionDepth, 'out');
      for (const target of reached.keys()) {
        for (const owner of ownersOf(target)) {
          if (owner === unit.number || conflicts.has(unit.number, owner, 'import')) continue;
          const chain = chainTo(reached, target);
          conflicts.add(unit.number, owner, 'import', describeChain(chain), { chain });
        }
      }
    }
  }
  return conflicts.list();
}
