/**
 * Resolves import specifiers to repository files the way TypeScript does (bundler resolution) —
 * tsconfig `paths` and `baseUrl` through `extends` chains, the nearest tsconfig per file, `.js`
 * written for `.ts` sources, index files, workspace packages by name, package `exports` and
 * self-references — against the repository's file list rather than the disk.
 *
 * Two tiers. The fast tier answers what real repositories mostly write — relative paths,
 * `paths` aliases, `baseUrl`, workspace package names — by probing the file list with
 * TypeScript's extension order; tsconfig chains are read with get-tsconfig. Whatever it cannot
 * answer with certainty (a directory with its own package.json, package `imports` (`#x`),
 * self-references through `exports` conditions, `rootDirs`, a tsconfig get-tsconfig cannot
 * follow) goes to TypeScript's own `resolveModuleName`, with one module-resolution cache per
 * tsconfig. So TypeScript is loaded only when a repository needs it, and the two tiers are
 * compared on real repositories in the benchmarks.
 *
 * Workspace package names resolve to the package's *source* entry from its manifest alone,
 * since the repository being planned usually has no `node_modules`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseTsconfig } from 'get-tsconfig';
import { nestsDeeperThan } from './json-depth.js';
import type { ts } from 'ts-morph';
import { baseName, parentDir, withoutLeadingDotSlash, withoutTrailingSlashes } from '../paths/repo-paths.js';
import type { RepoPath } from '../types.js';
import { isJsonModule, isSourceFile } from './graph-files.js';
import { CONDITIONS, exportsMap, exportsSettle, exportTargets, mappedTargets, packageName, patternNotes, tooCostlyForTypeScript } from './package-exports.js';
import { pathsMatcher } from './paths-matcher.js';
import { repoFileReader, type RepoFileReader } from './read-repo-file.js';
import { ChainBudget, ChainRefusal, ExtendsGuard, GuardedTsconfigCache } from './tsconfig-chain.js';
import type { PackageManifest, WorkspaceMember } from './read-workspace.js';
import { trimCompilerOptions, typesVersionsNotes } from './typescript-limits.js';
import { typescript } from './typescript.js';

export type Resolved = { kind: 'file'; path: RepoPath } | { kind: 'external' } | { kind: 'unresolved' };

const EXTERNAL: Resolved = { kind: 'external' };
const UNRESOLVED: Resolved = { kind: 'unresolved' };

interface ConfigContext {
  /** Absolute path of the tsconfig, or null for the defaults. */
  configPath: string | null;
  /** Candidate paths of a bare specifier from `paths` and `baseUrl` (built as asked); null when it has neither. */
  matcher: ((specifier: string) => readonly string[]) | null;
  customConditions: string[];
  /** `rootDirs` merges folders virtually: relative imports then need TypeScript. */
  rootDirs: boolean;
  /** Bare specifiers resolve the same from every folder under one tsconfig. */
  bareCache: Map<string, Resolved>;
  /** TypeScript's view of this tsconfig, made on the first fallback. */
  ts?: { options: ts.CompilerOptions; cache: ts.ModuleResolutionCache };
}

/** Imports of assets (styles, images, fonts…) are not part of the source graph. */
const ASSET = /\.(?:css|scss|sass|less|styl|pcss|svg|png|jpe?g|gif|webp|avif|ico|bmp|woff2?|ttf|eot|otf|mp4|webm|mp3|wav|ogg|md|mdx|txt|html?|vue|svelte|astro|wasm|glsl|frag|vert|graphql|gql|ya?ml|toml|csv)$/i;

const CONFIG_NAMES = new Set(['tsconfig.json', 'jsconfig.json']);
const BUILD_DIRS = /^(?:dist|lib|build|out|esm|cjs|es|types|typings)\//;

/** TypeScript's order of extensions to try, by the extension written (bundler resolution). */
const NO_EXTENSION = ['.ts', '.tsx', '.d.ts', '.js', '.jsx'];
const REPLACEMENTS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx', '.d.ts', '.js', '.jsx'],
  '.jsx': ['.tsx', '.d.ts', '.jsx'],
  '.mjs': ['.mts', '.d.mts', '.mjs'],
  '.cjs': ['.cts', '.d.cts', '.cjs'],
};
const TS_EXTENSION = /\.(?:d\.[mc]?ts|[mc]?tsx?)$/;
const PROBE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];

type Probe = Resolved | 'defer';

export interface ModuleResolverOptions {
  root: string;
  files: readonly RepoPath[];
  members: readonly WorkspaceMember[];
}

/** `@scope/pkg` → `.`; `@scope/pkg/x` → `./x`: the key of `exports` that names it. */
const subpathOf = (specifier: string, name: string) => (specifier === name ? '.' : `.${specifier.slice(name.length)}`);

export class ModuleResolver {
  private readonly root: string;
  private readonly reader: RepoFileReader;
  private readonly fileSet: Set<RepoPath>;
  private readonly dirSet = new Set<RepoPath>(['']);
  private readonly members = new Map<string, WorkspaceMember>();
  private readonly configByDir = new Map<RepoPath, ConfigContext>();
  private readonly configFiles = new Map<RepoPath, RepoPath>();
  private readonly nearestCache = new Map<RepoPath, ConfigContext>();
  private readonly readCache = new Map<string, string | undefined>();
  private readonly extendsGuard: ExtendsGuard;
  private readonly chainBudget = new ChainBudget();
  private readonly tsconfigCache: GuardedTsconfigCache;
  private readonly workspaceCache = new Map<string, RepoPath | null>();
  private readonly manifestCache = new Map<RepoPath, PackageManifest | null>();
  /** What each file was read in part for, in the order first noted (`skippedConfigs` joins them). */
  private readonly partNotes = new Map<RepoPath, Set<string>>();
  private readonly defaultContext: ConfigContext;
  private host: ts.ModuleResolutionHost | undefined;
  /**
   * Configuration files read (absolute path → content), for the cache key: those outside the file
   * list, and those in it whatever their name — an `extends` may name `config/base.json`, which
   * the key's manifests and `tsconfig*.json` do not cover.
   */
  readonly extraConfigReads = new Map<string, string>();
  /**
   * Tsconfigs skipped because their extends chain named a file waves refuses to read, and
   * manifests and tsconfigs read only in part (`patternNotes`, `honouredPaths`, typescript-limits.ts), with why.
   */
  readonly skippedConfigs = new Map<RepoPath, string>();
  /** How many specifiers went to TypeScript (for the benchmarks). */
  fallbacks = 0;

  constructor(options: ModuleResolverOptions) {
    this.root = path.resolve(options.root);
    this.reader = repoFileReader(this.root);
    this.extendsGuard = new ExtendsGuard(this.root);
    this.tsconfigCache = new GuardedTsconfigCache(this.extendsGuard, this.chainBudget);
    this.fileSet = new Set(options.files);
    for (const file of options.files) {
      let dir = parentDir(file);
      while (!this.dirSet.has(dir)) {
        this.dirSet.add(dir);
        dir = parentDir(dir);
      }
      if (CONFIG_NAMES.has(baseName(file)) && !file.includes('node_modules/')) {
        const d = parentDir(file);
        // tsconfig.json wins over jsconfig.json in the same folder.
        if (!this.configFiles.has(d) || baseName(file) === 'tsconfig.json') this.configFiles.set(d, file);
      }
    }
    for (const member of options.members) this.members.set(member.name, member);
    this.defaultContext = { configPath: null, matcher: null, customConditions: [], rootDirs: false, bareCache: new Map() };
  }

  /** Repository-relative path of an absolute one, or null when it lies outside the root. */
  private toRel(abs: string): RepoPath | null {
    let normal = abs.includes('\\') ? abs.replace(/\\/g, '/') : abs;
    // TypeScript asks about directories with a trailing slash.
    while (normal.length > 1 && normal.endsWith('/')) normal = normal.slice(0, -1);
    if (normal === this.root) return '';
    if (!normal.startsWith(`${this.root}/`)) return null;
    return normal.slice(this.root.length + 1);
  }

  // ── tsconfig contexts ──────────────────────────────────────────────────────────────────────

  /** The nearest tsconfig/jsconfig above a file decides how its imports resolve. */
  private contextFor(file: RepoPath): ConfigContext {
    const dir = parentDir(file);
    const cached = this.nearestCache.get(dir);
    if (cached) return cached;
    let context = this.defaultContext;
    for (let d: RepoPath | null = dir; d !== null; d = d === '' ? null : parentDir(d)) {
      const config = this.configFiles.get(d);
      if (config) {
        context = this.contextForConfig(config);
        break;
      }
    }
    this.nearestCache.set(dir, context);
    return context;
  }

  private contextForConfig(configRel: RepoPath): ConfigContext {
    const dir = parentDir(configRel);
    const known = this.configByDir.get(dir);
    if (known) return known;
    const abs = path.join(this.root, configRel);
    let context: ConfigContext;
    this.chainBudget.begin();
    try {
      // A tsconfig that is a link out of the repository, a FIFO or huge is not read (TypeScript's path below reads nothing either).
      if (!this.reader.read(configRel).ok) throw new Error(`${configRel}: not read`);
      // Every file of its extends chain is read through the guard (tsconfig-chain.ts).
      const config = parseTsconfig(abs, this.tsconfigCache as Map<string, unknown> as Map<string, string>);
      for (const [key, value] of this.tsconfigCache) {
        const read = /^readFileSync:(.*):utf8$/.exec(key);
        if (read && typeof value === 'string') this.extraConfigReads.set(read[1]!, value);
      }
      const options = config.compilerOptions ?? {};
      // `paths` without `baseUrl` lie under the tsconfig that wrote them, which get-tsconfig keeps under a symbol.
      const implicit = Object.getOwnPropertySymbols(options).find((key) => key.description === 'implicitBaseUrl');
      const implicitBase = implicit === undefined ? undefined : (options as Record<symbol, unknown>)[implicit];
      const base = path.resolve(path.dirname(abs), options.baseUrl || (typeof implicitBase === 'string' ? implicitBase : '') || '.');
      context = {
        configPath: abs,
        matcher: options.baseUrl || options.paths ? this.pathsMatcher(configRel, { base, baseUrl: Boolean(options.baseUrl), paths: options.paths }) : null,
        customConditions: (options as { customConditions?: string[] }).customConditions ?? [],
        rootDirs: Array.isArray(options.rootDirs) && options.rootDirs.length > 0,
        bareCache: new Map(),
      };
    } catch {
      const refused = this.tsconfigCache.takeRefusal();
      if (refused) return this.skipConfig(dir, configRel, refused);
      // A chain get-tsconfig cannot follow (say, `extends` into a workspace package that was never
      // installed): TypeScript reads it, through a host that knows the workspace.
      const refusals: ChainRefusal[] = [];
      const ts = this.tsContext(abs, refusals);
      if (refusals.length > 0) return this.skipConfig(dir, configRel, refusals[0]!);
      const options = ts.options;
      const base = options.baseUrl ?? (options as { pathsBasePath?: string }).pathsBasePath ?? path.dirname(abs);
      context = {
        configPath: abs,
        matcher: options.paths || options.baseUrl ? this.pathsMatcher(configRel, { base, baseUrl: true, paths: options.paths ?? {} }) : null,
        customConditions: options.customConditions ?? [],
        rootDirs: (options.rootDirs?.length ?? 0) > 0,
        bareCache: new Map(),
        ts,
      };
    }
    this.configByDir.set(dir, context);
    return context;
  }

  /** The matcher of a tsconfig's `paths`; one whose entries waves reads only in part is reported. */
  private pathsMatcher(configRel: RepoPath, options: Parameters<typeof pathsMatcher>[0]): (specifier: string) => readonly string[] {
    const matcher = pathsMatcher(options);
    this.notePart(configRel, matcher.notes());
    return (specifier) => {
      const candidates = matcher(specifier);
      // After they are built: the last may have been left unbuilt.
      this.notePart(configRel, matcher.notes());
      return candidates;
    };
  }

  /** A tsconfig whose extends chain waves refused to read counts as none, and is reported. */
  private skipConfig(dir: RepoPath, configRel: RepoPath, refusal: ChainRefusal): ConfigContext {
    this.skippedConfigs.set(configRel, refusal.message);
    this.configByDir.set(dir, this.defaultContext);
    return this.defaultContext;
  }

  // ── resolution ─────────────────────────────────────────────────────────────────────────────

  resolve(specifier: string, from: RepoPath): Resolved {
    if (specifier.length === 0 || specifier.startsWith('node:')) return EXTERNAL;
    const query = specifier.search(/[?#]/);
    if (query > 0 && !specifier.startsWith('#')) return EXTERNAL; // `./x.svg?raw`: a bundler asset
    const asset = ASSET.test(specifier);
    const context = this.contextFor(from);
    if (specifier.startsWith('.') || specifier.startsWith('/')) {
      if (specifier.startsWith('/') || context.rootDirs) return this.viaTypeScript(specifier, from, context);
      const target = path.posix.normalize(path.posix.join(parentDir(from) || '.', specifier));
      if (target === '..' || target.startsWith('../')) return UNRESOLVED;
      const found = this.probe(target === '.' ? '' : withoutTrailingSlashes(target), specifier.endsWith('/'));
      if (found === 'defer') return this.viaTypeScript(specifier, from, context);
      // A stylesheet or image is no part of the graph — unless it is code (`./styles.css` → `styles.css.ts`).
      return asset && found.kind !== 'file' ? EXTERNAL : found;
    }
    let result = context.bareCache.get(specifier);
    if (!result) {
      const computed = this.resolveBare(specifier, from, context);
      if (computed === null) {
        const fallback = this.viaTypeScript(specifier, from, context); // may depend on the importing folder
        return asset && fallback.kind !== 'file' ? EXTERNAL : fallback;
      }
      result = asset && computed.kind !== 'file' ? EXTERNAL : computed;
      context.bareCache.set(specifier, result);
    }
    return result;
  }

  /** Aliases, `baseUrl`, workspace packages; null when only TypeScript can tell. */
  private resolveBare(specifier: string, from: RepoPath, context: ConfigContext): Resolved | null {
    // `#x` imports depend on the importing file's package: they are not cached per tsconfig.
    if (specifier.startsWith('#') && !context.matcher) return this.resolveImportsField(specifier, from, context);
    for (const candidate of context.matcher?.(specifier) ?? []) {
      const rel = this.toRel(candidate);
      if (rel === null) continue;
      const found = this.probe(rel, false);
      if (found === 'defer') return null;
      if (found.kind === 'file') return found;
    }
    if (specifier.startsWith('#')) return this.resolveImportsField(specifier, from, context);
    const name = packageName(specifier);
    const member = name === null ? undefined : this.members.get(name);
    if (member && name !== null) {
      const workspace = this.resolveWorkspace(specifier, context.customConditions);
      if (workspace !== null) return { kind: 'file', path: workspace };
      const file = this.workspaceFile(specifier, name, member.dir) ?? this.exportedAsset(member.manifest, member.dir, subpathOf(specifier, name), context.customConditions);
      if (file === null && exportsSettle(member.manifest, subpathOf(specifier, name))) return UNRESOLVED;
      return file;
    }
    return this.looksInternal(specifier, context) ? UNRESOLVED : EXTERNAL;
  }

  /**
   * `@scope/pkg/<file>` named as it lies in the package, outside its `exports`: a JSON module
   * (`@scope/pkg/package.json`) is a node, another file that is no source an asset; null when
   * there is no such file (only TypeScript can tell then).
   */
  private workspaceFile(specifier: string, name: string, dir: RepoPath): Resolved | null {
    if (specifier.length <= name.length) return null;
    const file = `${dir === '' ? '' : `${dir}/`}${specifier.slice(name.length + 1)}`;
    if (!this.fileSet.has(file) || isSourceFile(file)) return null;
    return isJsonModule(file) ? { kind: 'file', path: file } : EXTERNAL;
  }

  /**
   * A subpath the package's `exports` maps to a file of the repository that is no source (`"./onboarding.zip":
   * "./onboarding/onboarding.zip"`), when no source stands for it (resolveWorkspace found none): an asset, or
   * a JSON module; null otherwise (only TypeScript can tell then) — TypeScript, loaded for nothing else, is
   * not asked about an archive.
   */
  private exportedAsset(manifest: PackageManifest, dir: RepoPath, subpath: string, conditions: readonly string[]): Resolved | null {
    for (const target of exportTargets(manifest, subpath, conditions)) {
      const clean = withoutTrailingSlashes(withoutLeadingDotSlash(target));
      if (clean === '' || clean.split('/').includes('..') || clean.includes('*')) continue;
      const file = dir === '' ? clean : `${dir}/${clean}`;
      if (this.fileSet.has(file) && !isSourceFile(file)) return this.asTarget(file);
    }
    return null;
  }

  /** A repository file as the graph sees it: a source or JSON module is a node, anything else an asset. */
  private asTarget(file: RepoPath): Resolved {
    return isSourceFile(file) || isJsonModule(file) ? { kind: 'file', path: file } : EXTERNAL;
  }

  /** A path as TypeScript tries it: exactly, with its `.js` → `.ts` replacements, then as a folder. */
  private probe(target: RepoPath, directoryOnly: boolean): Probe {
    if (!directoryOnly) {
      const ext = path.posix.extname(target);
      if (TS_EXTENSION.test(target) && this.fileSet.has(target)) return { kind: 'file', path: target };
      const replacements = REPLACEMENTS[ext];
      if (replacements) {
        const stem = target.slice(0, -ext.length);
        for (const r of replacements) if (this.fileSet.has(stem + r)) return { kind: 'file', path: stem + r };
      } else {
        if (ext !== '' && this.fileSet.has(target)) return this.asTarget(target);
        for (const r of NO_EXTENSION) if (this.fileSet.has(target + r)) return { kind: 'file', path: target + r };
      }
    }
    if (this.dirSet.has(target)) {
      const prefix = target === '' ? '' : `${target}/`;
      if (this.fileSet.has(`${prefix}package.json`)) {
        // A folder with a manifest: its `types`, then `main`, as TypeScript reads a folder.
        const manifest = this.manifest(target);
        if (manifest === null) return 'defer';
        if (manifest.typesVersions !== undefined) return 'defer';
        for (const field of ['types', 'typings', 'main'] as const) {
          const value = manifest[field];
          if (typeof value !== 'string') continue;
          const entry = withoutTrailingSlashes(path.posix.normalize(`${prefix}${value}`));
          if (entry.startsWith('../')) continue;
          const found = entry === target ? UNRESOLVED : this.probe(entry, false);
          if (found !== UNRESOLVED) return found;
        }
      }
      for (const r of NO_EXTENSION) if (this.fileSet.has(`${prefix}index${r}`)) return { kind: 'file', path: `${prefix}index${r}` };
    }
    return UNRESOLVED;
  }

  /** The listed package.json of a folder, parsed (null when absent or not JSON). */
  private manifest(dir: RepoPath): PackageManifest | null {
    if (this.manifestCache.has(dir)) return this.manifestCache.get(dir)!;
    const file = dir === '' ? 'package.json' : `${dir}/package.json`;
    let manifest: PackageManifest | null = null;
    const text = this.fileSet.has(file) ? this.readListedFile(path.join(this.root, file)) : undefined;
    if (text !== undefined && !nestsDeeperThan(text)) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) manifest = parsed as PackageManifest;
      } catch {
        manifest = null;
      }
    }
    this.manifestCache.set(dir, manifest);
    return manifest;
  }

  /** `#x` through the `imports` field of the importing file's package.json. */
  private resolveImportsField(specifier: string, from: RepoPath, context: ConfigContext): Resolved {
    for (let dir: RepoPath | null = parentDir(from); dir !== null; dir = dir === '' ? null : parentDir(dir)) {
      if (!this.fileSet.has(dir === '' ? 'package.json' : `${dir}/package.json`)) continue;
      const imports = this.manifest(dir)?.imports;
      if (!imports || typeof imports !== 'object') return UNRESOLVED;
      let result = UNRESOLVED;
      for (const target of mappedTargets(imports as Record<string, unknown>, specifier, [...context.customConditions, ...CONDITIONS])) {
        if (!target.startsWith('./')) {
          result = EXTERNAL; // mapped to a package
          break;
        }
        const entry = path.posix.normalize(`${dir === '' ? '' : `${dir}/`}${target}`);
        if (entry.startsWith('../')) continue;
        const found = this.probe(entry, false);
        if (found !== UNRESOLVED && found !== 'defer') {
          result = found;
          break;
        }
      }
      // After the targets are built: the last may have been left unbuilt.
      this.notePatterns(dir, imports as Record<string, unknown>, 'imports');
      return result;
    }
    return UNRESOLVED;
  }

  private looksInternal(specifier: string, context: ConfigContext): boolean {
    if (specifier.startsWith('~/') || specifier.startsWith('@/')) return true;
    const candidates = context.matcher?.(specifier) ?? [];
    // An alias (not merely `baseUrl` + name) that resolved to nothing is internal and missing.
    return candidates.length > 0 && context.matcher !== null && !candidates.every((c) => c.endsWith(`/${specifier}`));
  }

  /**
   * The same question asked of TypeScript alone, without the fast tier: the reference the fast
   * tier is checked against (tests and benchmarks).
   */
  resolveWithTypeScript(specifier: string, from: RepoPath): Resolved {
    if (specifier.length === 0 || specifier.startsWith('node:')) return EXTERNAL;
    const query = specifier.search(/[?#]/);
    if (query > 0 && !specifier.startsWith('#')) return EXTERNAL;
    const result = this.viaTypeScript(specifier, from, this.contextFor(from));
    return ASSET.test(specifier) && result.kind !== 'file' ? EXTERNAL : result;
  }

  // ── TypeScript fallback ────────────────────────────────────────────────────────────────────

  private viaTypeScript(specifier: string, from: RepoPath, context: ConfigContext): Resolved {
    this.fallbacks++;
    const api = typescript();
    context.ts ??= context.configPath ? this.tsContext(context.configPath) : this.makeTsContext({});
    const result = api.resolveModuleName(specifier, path.join(this.root, from), context.ts.options, this.tsHost(), context.ts.cache);
    const resolved = result.resolvedModule;
    if (resolved && !resolved.isExternalLibraryImport) {
      const rel = this.toRel(resolved.resolvedFileName);
      if (rel !== null && this.fileSet.has(rel)) return this.asTarget(rel);
    }
    if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return UNRESOLVED;
    const workspace = this.resolveWorkspace(specifier, context.customConditions);
    if (workspace) return { kind: 'file', path: workspace };
    const name = packageName(specifier);
    const member = name === null ? undefined : this.members.get(name);
    const file = member && name !== null ? this.workspaceFile(specifier, name, member.dir) : null;
    if (file !== null) return file;
    return member !== undefined || this.looksInternal(specifier, context) ? UNRESOLVED : EXTERNAL;
  }

  private tsHost(): ts.ModuleResolutionHost {
    this.host ??= {
      fileExists: (abs) => {
        const rel = this.toRel(abs);
        return rel !== null && this.fileSet.has(rel);
      },
      directoryExists: (abs) => {
        const rel = this.toRel(abs);
        return rel !== null && this.dirSet.has(rel);
      },
      readFile: (abs) => (this.hiddenFromTypeScript(abs) ? undefined : this.readListedFile(abs)),
      realpath: (p) => p,
      getCurrentDirectory: () => this.root,
      useCaseSensitiveFileNames: true,
    };
    return this.host;
  }

  private makeTsContext(raw: ts.CompilerOptions): { options: ts.CompilerOptions; cache: ts.ModuleResolutionCache } {
    const api = typescript();
    const options: ts.CompilerOptions = {
      ...raw,
      moduleResolution: api.ModuleResolutionKind.Bundler,
      module: api.ModuleKind.ESNext,
      allowJs: true,
      resolveJsonModule: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      resolvePackageJsonExports: true,
      resolvePackageJsonImports: true,
    };
    return { options, cache: api.createModuleResolutionCache(this.root, (f) => f, options) };
  }

  /** TypeScript's reading of a tsconfig, `extends` chains included; what the guard refused goes to `refusals`. */
  private tsContext(abs: string, refusals: ChainRefusal[] = []): { options: ts.CompilerOptions; cache: ts.ModuleResolutionCache } {
    this.chainBudget.begin();
    const api = typescript();
    const readFile = (f: string) => {
      const text = this.readConfigFile(f);
      if (typeof text === 'string') return text;
      if (text) refusals.push(text);
      return undefined;
    };
    const parseHost: ts.ParseConfigHost = {
      useCaseSensitiveFileNames: true,
      readDirectory: () => [],
      fileExists: (f) => readFile(f) !== undefined,
      readFile,
    };
    const read = api.readConfigFile(abs, readFile);
    if (read.error || !read.config) return this.makeTsContext({});
    const parsed = api.parseJsonConfigFileContent(read.config, parseHost, path.dirname(abs), { ignoreDeprecations: '6.0' }, abs);
    // TypeScript walks every `paths` entry and `rootDirs` folder for each specifier it is asked: it sees those waves honours.
    const trimmed = trimCompilerOptions(parsed.options);
    const rel = this.toRel(abs);
    if (rel !== null) this.notePart(rel, trimmed.notes);
    return this.makeTsContext(trimmed.options);
  }

  /**
   * A listed manifest with a malformed pattern target, or a key with more targets than waves
   * honours, is none to TypeScript, which would build every target whatever its `*`
   * (package-exports.ts); so is one whose `typesVersions` go past waves' caps on `paths`, which
   * TypeScript would walk for every import of the package (typescript-limits.ts). It is reported
   * as read in part.
   */
  private hiddenFromTypeScript(abs: string): boolean {
    if (path.basename(abs) !== 'package.json') return false;
    const rel = this.toRel(abs);
    const manifest = rel === null ? null : this.manifest(parentDir(rel));
    if (rel === null || manifest === null) return false;
    let hidden = false;
    const exports = exportsMap(manifest);
    if (exports !== null && tooCostlyForTypeScript(exports)) {
      this.notePatterns(parentDir(rel), exports, 'exports');
      hidden = true;
    }
    const imports = manifest.imports;
    if (imports && typeof imports === 'object' && tooCostlyForTypeScript(imports as Record<string, unknown>)) {
      this.notePatterns(parentDir(rel), imports as Record<string, unknown>, 'imports');
      hidden = true;
    }
    const typesVersions = typesVersionsNotes(manifest.typesVersions);
    if (typesVersions.length > 0) {
      this.notePart(rel, typesVersions);
      hidden = true;
    }
    return hidden;
  }

  /** Reads a listed file (package manifests during resolution). */
  private readListedFile(abs: string): string | undefined {
    if (this.readCache.has(abs)) return this.readCache.get(abs);
    const rel = this.toRel(abs);
    let text: string | undefined;
    if (rel !== null && this.fileSet.has(rel)) {
      const read = this.reader.read(rel);
      text = read.ok ? read.content.toString('utf8') : undefined;
    }
    this.readCache.set(abs, text);
    return text;
  }

  /**
   * Reads a configuration file named by a tsconfig's `extends`: listed or not (a gitignored
   * generated config counts), and a workspace package's file when the chain goes through
   * `node_modules/<package>` that was never installed.
   */
  private readConfigFile(abs: string): string | ChainRefusal | undefined {
    // Once the chain is refused, nothing more of it is looked up (tsconfig-chain.ts).
    if (this.chainBudget.spent) return this.chainBudget.spent;
    const text = this.readConfigText(abs);
    // A file of the chain that is there counts, read now or before; so does a look-up of one that is not.
    if (text === undefined) return this.chainBudget.miss(abs) ?? undefined;
    return typeof text === 'string' ? (this.chainBudget.take(abs, text) ?? text) : text;
  }

  private readConfigText(abs: string): string | ChainRefusal | undefined {
    if (this.readCache.has(abs)) return this.readCache.get(abs);
    const rel = this.toRel(abs);
    if (rel !== null && this.fileSet.has(rel)) {
      const listed = this.reader.read(rel);
      if (!listed.ok && listed.reason) return new ChainRefusal(abs, `which is ${listed.reason}`);
      const text = listed.ok ? listed.content.toString('utf8') : undefined;
      this.readCache.set(abs, text);
      return text;
    }
    let real = abs;
    if (!existsSync(abs)) real = this.workspaceConfigPath(abs) ?? abs;
    if (this.hiddenFromTypeScript(real)) return undefined;
    // Only what the chain may read (tsconfig-chain.ts): never a device, a FIFO or a file out of the repository.
    const read = this.extendsGuard.read(real);
    if (!read.ok && !read.missing) return read.refusal;
    const text = read.ok ? read.text : undefined;
    if (text !== undefined) this.extraConfigReads.set(real, text);
    this.readCache.set(abs, text);
    return text;
  }

  /** `<anything>/node_modules/@scope/pkg/base.json` → `<root>/<pkg dir>/base.json` for a workspace package. */
  private workspaceConfigPath(abs: string): string | null {
    const normal = abs.replace(/\\/g, '/');
    const at = normal.lastIndexOf('/node_modules/');
    if (at < 0) return null;
    const inner = normal.slice(at + '/node_modules/'.length);
    const name = packageName(inner);
    const member = name === null ? undefined : this.members.get(name);
    if (!member || name === null) return null;
    const rest = inner.slice(name.length).replace(/^\/+/, '');
    if (rest.split('/').includes('..')) return null;
    return path.join(this.root, member.dir, rest);
  }

  // ── workspace packages ─────────────────────────────────────────────────────────────────────

  /** A workspace package name (and subpath) → the package's source file, from its manifest. */
  resolveWorkspace(specifier: string, conditions: readonly string[] = []): RepoPath | null {
    const key = `${conditions.join(',')}|${specifier}`;
    const cached = this.workspaceCache.get(key);
    if (cached !== undefined) return cached;
    let found: RepoPath | null = null;
    const name = packageName(specifier);
    const member = name === null ? undefined : this.members.get(name);
    if (member && name !== null) {
      const subpath = subpathOf(specifier, name);
      for (const target of exportTargets(member.manifest, subpath, conditions)) {
        found = this.probeSource(member.dir, target);
        if (found) break;
      }
      // After the targets are built: the last may have been left unbuilt.
      const map = exportsMap(member.manifest);
      if (map !== null) this.notePatterns(member.dir, map, 'exports');
    }
    this.workspaceCache.set(key, found);
    return found;
  }

  /** A manifest whose `exports` or `imports` waves reads only in part is reported (each reason once). */
  private notePatterns(dir: RepoPath, map: Record<string, unknown>, field: 'exports' | 'imports'): void {
    this.notePart(dir === '' ? 'package.json' : `${dir}/package.json`, patternNotes(map, field));
  }

  /** Adds what `file` was read in part for to its entry in `skippedConfigs`; a reason already there is not repeated. */
  private notePart(file: RepoPath, notes: readonly string[]): void {
    if (notes.length === 0) return;
    let known = this.partNotes.get(file);
    if (!known) this.partNotes.set(file, (known = new Set()));
    const before = known.size;
    for (const note of notes) known.add(note);
    if (known.size !== before) this.skippedConfigs.set(file, [...known].join('; '));
  }

  private probeSource(pkgDir: RepoPath, target: string): RepoPath | null {
    const clean = withoutTrailingSlashes(withoutLeadingDotSlash(target));
    if (clean.split('/').includes('..')) return null;
    const variants = [clean];
    if (BUILD_DIRS.test(clean)) variants.push(clean.replace(BUILD_DIRS, 'src/'), clean.replace(BUILD_DIRS, ''));
    else if (!clean.startsWith('src/')) variants.push(`src/${clean}`);
    for (const variant of variants) {
      const full = pkgDir === '' ? variant : variant === '' ? pkgDir : `${pkgDir}/${variant}`;
      if (this.fileSet.has(full) && ((isSourceFile(full) && !/\.d\.[mc]?ts$/.test(full)) || isJsonModule(full))) return full;
      const stem = full.replace(/\.d\.[mc]?ts$|\.[mc]?[jt]sx?$/, '');
      for (const base of [stem, `${stem}/index`]) {
        for (const ext of PROBE_EXTENSIONS) {
          if (this.fileSet.has(base + ext)) return base + ext;
        }
      }
    }
    return null;
  }
}
