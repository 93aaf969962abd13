/**
 * Control files: files a tool or an agent executes or obeys when it runs in the work tree — a
 * package manager (its manifests, rc files and hooks), git (attributes, ignores, submodules, hooks
 * managers), CI (every forge's, ci-paths.ts), the agents (their settings, plugins, MCP servers,
 * instruction files), waves itself, the config modules build and test tools load as code
 * (`*.config.ts`, `.eslintrc.cjs`), and the build files and tool configs of other ecosystems
 * (Python's, Rust's, Gradle's and Maven's, MSBuild's, mise's, nix's).
 * A change to one runs code, or changes what runs, the next time anyone works in the tree: never
 * added to a parallel run's fence as an extension (decide-lease.ts), and a change to one that the
 * plan did not put in the fence needs a person at harvest. A folder of the fence (a lane,
 * `packages/web/`) does not cover one: only an issue that names the file itself changes it
 * (`isUnnamedControlFile`). The plan's own rules do not use this list: an issue that names such a
 * file is planned as before.
 *
 * NOTE: a name a tool looks up by convention belongs here even when it is rare in JavaScript
 * repositories: the agent chooses what to plant, and the next tool to run in that folder obeys it.
 */
import type { RepoPath } from '../types.js';
import { CI_DIRS, CI_FILES } from './ci-paths.js';

/**
 * File names (at any depth) that tools run or obey, lower-cased: names are compared in any case,
 * since on a case-insensitive checkout (macOS's, Windows') `.Claude/settings.json` is
 * `.claude/settings.json` and `.GitAttributes` is `.gitattributes`.
 */
const CONTROL_NAMES = new Set([
  'package.json',
  'waves.config.json',
  'opencode.json',
  'opencode.jsonc',
  '.mcp.json',
  '.pnpmfile.cjs',
  '.pnpmfile.mjs',
  '.gitattributes',
  '.gitmodules',
  '.gitignore',
  '.envrc',
  '.tool-versions',
  'claude.md',
  'claude.local.md',
  'agents.md',
  'gemini.md',
  // Rules other coding agents load as instructions.
  '.cursorrules',
  '.windsurfrules',
  '.clinerules',
  '.roorules',
  '.continuerules',
  '.goosehints',
  '.aider.conf.yml',
  'agent.md',
  'qwen.md',
  '.rules',
  // Task runners and hook managers a person or an agent runs in the tree.
  'mise.toml',
  '.mise.toml',
  'justfile',
  '.justfile',
  'taskfile.yml',
  'taskfile.yaml',
  'makefile',
  'gnumakefile',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  'lefthook.yaml',
  '.lefthook.yml',
  'project.json',
  'turbo.json',
  'nx.json',
  'deno.json',
  'deno.jsonc',
  'bunfig.toml',
  'taskfile.dist.yml',
  'taskfile.dist.yaml',
  'lefthook-local.yml',
  'lefthook-local.yaml',
  '.lefthook.yaml',
  '.lefthook-local.yml',
  '.lefthook-local.yaml',
  'rakefile',
  'gemfile',
  // Python: build scripts and the configs pytest, tox, nox, pip, pipenv and poetry read (`addopts`, plugins, indexes).
  'conftest.py',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'pytest.ini',
  'tox.ini',
  'noxfile.py',
  'pipfile',
  'pip.conf',
  'poetry.toml',
  'uv.toml',
  'pixi.toml',
  // Rust: the manifest (build scripts, its own `[patch]`), the build script, the toolchain it selects.
  'cargo.toml',
  'build.rs',
  'rust-toolchain',
  'rust-toolchain.toml',
  // Gradle and Maven: the wrappers download and run what their properties name; the builds run plugins.
  'gradlew',
  'gradlew.bat',
  'gradle.properties',
  'mvnw',
  'mvnw.cmd',
  'pom.xml',
  // MSBuild imports these into every project below them; NuGet reads its package sources.
  'directory.build.props',
  'directory.build.targets',
  'directory.build.rsp',
  'directory.packages.props',
  'nuget.config',
  // Nix shells run their hooks on entry (`nix develop`, direnv's `use flake`).
  'flake.nix',
  'shell.nix',
  'devenv.nix',
  // node-gyp builds a package's native addon at every install (its actions run commands); PHP's
  // composer runs a manifest's scripts; linters and test runners that load plugins and options.
  'binding.gyp',
  'composer.json',
  'pylintrc',
  'mypy.ini',
  '.pytest.ini',
  '.rspec',
  '.rubocop.yml',
  '.rubocop.yaml',
  'procfile',
  // Build files other tools run, workspace settings pnpm obeys, a Go module's `toolchain` (go
  // downloads and runs the one it names), Git LFS's endpoint, compose files, Vagrant's Ruby.
  'cmakelists.txt',
  'pnpm-workspace.yaml',
  'go.mod',
  'go.work',
  '.lfsconfig',
  'compose.yaml',
  'compose.yml',
  'docker-compose.yaml',
  'docker-compose.yml',
  'vagrantfile',
  // Container builds run their steps; Yarn's Plug'n'Play loader is code node runs for every
  // script; the lockfiles say what an install fetches and from where.
  'dockerfile',
  'containerfile',
  '.pnp.cjs',
  '.pnp.loader.mjs',
  'pnpm-lock.yaml',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'bun.lock',
  'bun.lockb',
  // Tool configs in JSON or TOML that a build, lint, release, deploy or dev server obeys (nodemon's
  // `exec`, a deploy's build command, the checks biome and knip run), and the Node version files
  // version managers switch to.
  'knip.json',
  'knip.jsonc',
  '.knip.json',
  '.knip.jsonc',
  'knip.ts',
  'knip.js',
  'knip.mjs',
  'knip.cjs',
  'nodemon.json',
  'biome.json',
  'biome.jsonc',
  'dprint.json',
  '.dprint.json',
  'lerna.json',
  'rush.json',
  'renovate.json',
  'renovate.json5',
  '.renovaterc',
  'vercel.json',
  'now.json',
  'netlify.toml',
  'firebase.json',
  'wrangler.toml',
  'wrangler.json',
  'wrangler.jsonc',
  'cypress.json',
  'typedoc.json',
  'api-extractor.json',
  '.size-limit.js',
  '.size-limit.cjs',
  '.size-limit.mjs',
  '.size-limit.json',
  '.gitpod.yml',
  '.node-version',
  ...CI_FILES.map((name) => name.toLowerCase()),
]);

/**
 * Folders (at any depth, any case) whose every file a tool runs or obeys — `.git` among them: a
 * nested repository's config and hooks; the CI folders; `.cargo` (its `config.toml` sets runners
 * and linkers), `.mvn` (extensions, JVM options), `.config` (where mise, dotnet tools, nextest and
 * others look).
 */
const CONTROL_DIRS = new Set([
  '.git', '.husky', '.githooks', '.claude', '.opencode', '.vscode', '.devcontainer', '.yarn', '.cursor', '.codex', '.gemini', '.windsurf',
  '.clinerules', '.roo', '.continue', '.junie', '.kiro', '.kilocode', '.amazonq', '.idea', '.zed', '.mise', '.qwen', '.cargo', '.mvn', '.config', '.storybook',
  ...CI_DIRS.map((dir) => dir.toLowerCase()),
]);

/** Folder paths (two or more names, at any depth, any case) whose every file a tool runs: the Gradle wrapper's (its jar, its `distributionUrl`). */
const CONTROL_DIR_PATHS: readonly string[] = ['gradle/wrapper'];

/**
 * Patterns of names (lower-cased): rc files (`.npmrc`, `.yarnrc.yml`, `.eslintrc.cjs`), config
 * modules and files tools load (`vite.config.ts`, `babel.config.json`, `jest.config.yaml`), test
 * workspaces (`vitest.workspace.ts`), tsconfig files.
 */
const CONTROL_PATTERNS: readonly RegExp[] = [
  /^\.[\w.-]*rc(\.(c|m)?[jt]s|\.json5?|\.ya?ml|\.toml)?$/,
  // With a variant between (`vitest.config.base.mts`, `webpack.config.babel.js`, `mikro-orm.config.dev.ts`).
  /\.config(\.[\w-]+)*\.((c|m)?[jt]sx?|json5?|ya?ml|toml)$/,
  /\.workspace\.((c|m)?[jt]s|json)$/,
  /^tsconfig(\..+)?\.json$/,
  /^jsconfig(\..+)?\.json$/,
  // Environment files tools load (`.env`, `.env.local`, `.env.test`).
  /^\.env(\..+)?$/,
  // mise's per-environment and local configs (`mise.local.toml`, `.mise.dev.toml`).
  /^\.?mise\.[\w.-]+\.toml$/,
  // Gradle builds, settings and init scripts (`build.gradle`, `settings.gradle.kts`).
  /\.gradle(\.kts)?$/,
  // MSBuild projects: their targets run at every build.
  /\.(cs|fs|vb)proj$/,
  // Config modules named `.conf` (`karma.conf.js`, `protractor.conf.cjs`).
  /\.conf(\.[\w-]+)*\.(c|m)?[jt]s$/,
  // Dockerfiles of a variant (`Dockerfile.dev`, `web.dockerfile`).
  /^(docker|container)file\.(?!(md|mdx|txt|rst|adoc|html?)$)[\w.-]+$/,
  /\.(docker|container)file$/,
  // Task files gulp and grunt run; pip's requirements, which may name an index or a repository to install from.
  /^(gulpfile|gruntfile)(\.[\w-]+)*\.((c|m)?[jt]s|coffee)$/,
  /^(requirements|constraints)([\w.-]*)\.(txt|in)$/,
];

/** Whether a repository path is a control file or folder (see above): its name, or a folder on its way, in any case. */
export function isControlFile(repoPath: RepoPath): boolean {
  // NFKC first: a look-alike (`.huſky`, a long s; full-width letters) is compared as the name it
  // imitates. Then as Windows opens a name: without the dots and spaces that end it, nor the
  // `::$DATA` that names its content (`package.json.` and `package.json::$DATA` are package.json).
  const segments = repoPath
    .normalize('NFKC')
    .toLowerCase()
    .split('/')
    .map((s) => (/^\.+$/.test(s) ? s : s.replace(/::\$data$/, '').replace(/[. ]+$/, '')))
    .filter((s) => s !== '');
  if (segments.length === 0) return false;
  const name = segments.at(-1)!;
  if (CONTROL_NAMES.has(name)) return true;
  // A folder on its way, or the folder itself (`.claude/`, `.github`).
  if (segments.some((s) => CONTROL_DIRS.has(s))) return true;
  const joined = `/${segments.join('/')}/`;
  if (CONTROL_DIR_PATHS.some((dir) => joined.includes(`/${dir}/`))) return true;
  return CONTROL_PATTERNS.some((pattern) => pattern.test(name));
}

/**
 * Whether a change to `repoPath` needs the issue to name it and the fence does not: a control
 * file is covered only by a file leaf that is the file itself, never by a folder leaf holding it
 * (a lane's `packages/web/`, the root `./`). A folder stands for the sources in it; the agent
 * choosing to plant `packages/web/.npmrc` or `packages/web/.claude/settings.json` there is no
 * part of what the issue asked, and they act at the next install or agent session of anyone
 * working in that folder, a later wave's agent included. `fence` holds leaves as runs record them
 * (folders end with `/`), or as repository paths.
 */
export function isUnnamedControlFile(repoPath: RepoPath, fence: readonly string[]): boolean {
  return isControlFile(repoPath) && !fence.includes(repoPath);
}

/** Why a write to an unnamed control file is refused (said after its path): the live fence's answer and the replay's. */
export const UNNAMED_CONTROL_FILE =
  'a control file (one that tools or agents run or obey: manifests, rc files, hooks, agent and CI settings, tool configs) inside a folder of the fence: the folder does not name it, and only an issue that names the file itself may change it';

