/**
 * Resolves import specifiers to repository files the way TypeScript does — tsconfig `paths`,
 * `baseUrl`, `extends` chains, the nearest tsconfig per file, `.js` written for `.ts` sources,
 * index files, package `exports` and self-references — against the repository's file list rather
 * than the disk, with one module-resolution cache per tsconfig. Workspace package names resolve to
 * the package's source entry from its manifest alone, since the repository being planned usually
 * has no `node_modules`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ts } from 'ts-morph';
import { baseName, parentDir } from '../scope/repo-tree.js';
import type { RepoPath } from '../types.js';
import type { PackageManifest, WorkspaceMember } from './read-workspace.js';
import { typescript } from './typescript.js';

export const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

export function isSourceFile(file: RepoPath): boolean {
  return SOURCE_EXTENSIONS.some((ext) => file.endsWith(ext)) && !file.split('/').includes('node_modules');
}

export type Resolved = { kind: 'file'; path: RepoPath } | { kind: 'external' } | { kind: 'unresolved' };

interface ConfigContext {
  options: ts.CompilerOptions;
  cache: ts.ModuleResolutionCache;
  /** Prefixes of its `paths` patterns (`@app/` for `@app/*`), to tell aliases from packages. */
  aliasPrefixes: string[];
}

const CONFIG_NAMES = new Set(['tsconfig.json', 'jsconfig.json']);
const PROBE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];
const BUILD_DIRS = /^(?:dist|lib|build|out|esm|cjs|es|types|typings)\//;
const CONDITIONS = ['source', 'types', 'typings', 'import', 'module', 'node', 'default', 'require', 'development', 'browser'];

export interface ModuleResolverOptions {
  root: string;
  files: readonly RepoPath[];
  members: readonly WorkspaceMember[];
}

export class ModuleResolver {
  private readonly root: string;
  private readonly fileSet: Set<RepoPath>;
  private readonly dirSet = new Set<RepoPath>(['']);
  private readonly members = new Map<string, WorkspaceMember>();
  private readonly configByDir = new Map<RepoPath, ConfigContext>();
  private readonly configFiles = new Map<RepoPath, RepoPath>();
  private readonly nearestCache = new Map<RepoPath, ConfigContext>();
  private readonly readCache = new Map<string, string | undefined>();
  private readonly host: ts.ModuleResolutionHost;
  private readonly defaultContext: ConfigContext;

  constructor(options: ModuleResolverOptions) {
    this.root = path.resolve(options.root);
    this.fileSet = new Set(options.files);
    for (const file of options.files) {
      let dir = parentDir(file);
      while (!this.dirSet.has(dir)) {
        this.dirSet.add(dir);
        dir = parentDir(dir);
      }
      if (CONFIG_NAMES.has(baseName(file)) && !file.split('/').includes('node_modules')) {
        const d = parentDir(file);
        // tsconfig.json wins over jsconfig.json in the same folder.
        if (!this.configFiles.has(d) || baseName(file) === 'tsconfig.json') this.configFiles.set(d, file);
      }
    }
    for (const member of options.members) this.members.set(member.name, member);
    this.host = {
      fileExists: (abs) => {
        const rel = this.toRel(abs);
        return rel !== null && this.fileSet.has(rel);
      },
      directoryExists: (abs) => {
        const rel = this.toRel(abs);
        return rel !== null && this.dirSet.has(rel);
      },
      readFile: (abs) => this.readRepoFile(abs),
      realpath: (p) => p,
      getCurrentDirectory: () => this.root,
      useCaseSensitiveFileNames: true,
    };
    this.defaultContext = this.makeContext({});
  }

  /** Repository-relative path of an absolute one, or null when it lies outside the root. */
  private toRel(abs: string): RepoPath | null {
    const normal = abs.replace(/\\/g, '/');
    if (normal === this.root) return '';
    if (!normal.startsWith(`${this.root}/`)) return null;
    return normal.slice(this.root.length + 1);
  }

  /** Reads configuration files (tsconfig, package.json) — inside the root only. */
  private readRepoFile(abs: string): string | undefined {
    if (this.readCache.has(abs)) return this.readCache.get(abs);
    const rel = this.toRel(abs);
    let text: string | undefined;
    if (rel !== null && this.fileSet.has(rel)) {
      try {
        text = readFileSync(abs, 'utf8');
      } catch {
        text = undefined;
      }
    }
    this.readCache.set(abs, text);
    return text;
  }

  private makeContext(raw: ts.CompilerOptions): ConfigContext {
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
    const aliasPrefixes = Object.keys(options.paths ?? {}).map((pattern) => pattern.replace(/\*.*$/, ''));
    return {
      options,
      cache: api.createModuleResolutionCache(this.root, (f) => f, options),
      aliasPrefixes,
    };
  }

  /** The compiler options of the tsconfig in `dir`, following `extends` (read through our host). */
  private contextForConfig(configRel: RepoPath): ConfigContext {
    const dir = parentDir(configRel);
    const known = this.configByDir.get(dir);
    if (known) return known;
    const abs = path.join(this.root, configRel);
    const parseHost: ts.ParseConfigHost = {
      useCaseSensitiveFileNames: true,
      readDirectory: () => [],
      fileExists: (f) => this.readRepoFile(f) !== undefined,
      readFile: (f) => this.readRepoFile(f),
    };
    const api = typescript();
    let context: ConfigContext;
    const read = api.readConfigFile(abs, (f) => this.readRepoFile(f));
    if (read.error || !read.config) context = this.defaultContext;
    else {
      const parsed = api.parseJsonConfigFileContent(read.config, parseHost, path.dirname(abs), { ignoreDeprecations: '6.0' }, abs);
      context = this.makeContext(parsed.options);
    }
    this.configByDir.set(dir, context);
    return context;
  }

  /** The nearest tsconfig/jsconfig above a file decides how its imports resolve. */
  private contextFor(file: RepoPath): ConfigContext {
    const dir = parentDir(file);
    const cached = this.nearestCache.get(dir);
    if (cached) return cached;
    let context = this.defaultContext;
    let d: RepoPath | null = dir;
    while (d !== null) {
      const config = this.configFiles.get(d);
      if (config) {
        context = this.contextForConfig(config);
        break;
      }
      d = d === '' ? null : parentDir(d);
    }
    this.nearestCache.set(dir, context);
    return context;
  }

  resolve(specifier: string, from: RepoPath): Resolved {
    if (specifier.length === 0 || specifier.startsWith('node:')) return { kind: 'external' };
    const context = this.contextFor(from);
    const relative = specifier.startsWith('.') || specifier.startsWith('/');
    const result = typescript().resolveModuleName(specifier, path.join(this.root, from), context.options, this.host, context.cache);
    const resolved = result.resolvedModule;
    if (resolved && !resolved.isExternalLibraryImport) {
      const rel = this.toRel(resolved.resolvedFileName);
      if (rel !== null && this.fileSet.has(rel)) return isSourceFile(rel) ? { kind: 'file', path: rel } : { kind: 'external' };
    }
    if (relative) return { kind: 'unresolved' };
    const workspace = this.resolveWorkspace(specifier);
    if (workspace) return { kind: 'file', path: workspace };
    return this.looksInternal(specifier, context) ? { kind: 'unresolved' } : { kind: 'external' };
  }

  private looksInternal(specifier: string, context: ConfigContext): boolean {
    if (specifier.startsWith('#') || specifier.startsWith('~/') || specifier.startsWith('@/')) return true;
    if (context.aliasPrefixes.some((prefix) => prefix !== '' && specifier.startsWith(prefix))) return true;
    const name = packageName(specifier);
    return name !== null && this.members.has(name);
  }

  /** A workspace package name (and subpath) → the package's source file, from its manifest. */
  resolveWorkspace(specifier: string): RepoPath | null {
    const name = packageName(specifier);
    if (name === null) return null;
    const member = this.members.get(name);
    if (!member) return null;
    const subpath = specifier === name ? '.' : `.${specifier.slice(name.length)}`;
    const targets = exportTargets(member.manifest, subpath);
    for (const target of targets) {
      const found = this.probeSource(member.dir, target);
      if (found) return found;
    }
    return null;
  }

  private probeSource(pkgDir: RepoPath, target: string): RepoPath | null {
    const clean = target.replace(/^\.\/+/, '').replace(/\/+$/, '');
    if (clean.split('/').includes('..')) return null;
    const variants = [clean];
    if (BUILD_DIRS.test(clean)) variants.push(clean.replace(BUILD_DIRS, 'src/'), clean.replace(BUILD_DIRS, ''));
    else if (!clean.startsWith('src/')) variants.push(`src/${clean}`);
    for (const variant of variants) {
      const full = pkgDir === '' ? variant : variant === '' ? pkgDir : `${pkgDir}/${variant}`;
      if (this.fileSet.has(full) && isSourceFile(full) && !/\.d\.[mc]?ts$/.test(full)) return full;
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

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; relative or odd specifiers → null. */
export function packageName(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return null;
  const parts = specifier.split('/');
  if (specifier.startsWith('@')) return parts.length >= 2 && parts[1] ? `${parts[0]}/${parts[1]}` : null;
  return parts[0] || null;
}

function conditionTargets(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) conditionTargets(v, out);
  else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const condition of CONDITIONS) if (condition in record) conditionTargets(record[condition], out);
    for (const [key, v] of Object.entries(record)) if (!CONDITIONS.includes(key)) conditionTargets(v, out);
  }
}

/**
 * Candidate targets for a subpath of a package, most likely source first: `exports` (exact keys,
 * then `*` patterns), then the `source`/`types`/`module`/`main` fields for the root, then the
 * conventional `src/index` and `index`.
 */
export function exportTargets(manifest: PackageManifest, subpath: string): string[] {
  const out: string[] = [];
  const exports = manifest.exports;
  if (exports !== undefined && exports !== null) {
    const map =
      typeof exports === 'string' || Array.isArray(exports) || (typeof exports === 'object' && !Object.keys(exports).some((k) => k.startsWith('.')))
        ? { '.': exports }
        : (exports as Record<string, unknown>);
    if (subpath in map) conditionTargets(map[subpath], out);
    else {
      const patterns = Object.keys(map)
        .filter((key) => key.includes('*'))
        .sort((a, b) => b.length - a.length);
      for (const key of patterns) {
        const [prefix, suffix] = key.split('*') as [string, string];
        if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= prefix.length + suffix.length) {
          const star = subpath.slice(prefix.length, subpath.length - suffix.length);
          const targets: string[] = [];
          conditionTargets(map[key], targets);
          out.push(...targets.map((t) => t.split('*').join(star)));
          break;
        }
      }
    }
  }
  if (subpath === '.') {
    for (const field of ['source', 'types', 'typings', 'module', 'main'] as const) {
      const value = manifest[field];
      if (typeof value === 'string') out.push(value);
    }
    out.push('src/index', 'index');
  } else {
    out.push(subpath);
  }
  return [...new Set(out)];
}
