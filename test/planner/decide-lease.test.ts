import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRepoTree, decideAcquire, decideLeases, isControlFile, dependenciesOf, dependentsOf, lanesOverlap, type Lease, type LeaseRules } from '@waves/planner';
import { repoArb, type RandomRepo } from '../arbitraries.js';
import { makeRepo } from '../helpers/repo.js';

const UNTIL = '2026-11-29T13:00:00.000Z';
const lease = (lane: string, holder: string, id = `l-${holder}-${lane}`): Lease => ({ id, lane, holder, since: '2026-11-29T12:00:00.000Z', until: UNTIL });

const repo = makeRepo({
  files: ['package.json', 'pnpm-lock.yaml', 'tsconfig.json', 'packages/a/src/x.ts', 'packages/a/src/y.ts', 'packages/b/src/z.ts', 'packages/b/src/w.ts', 'packages/c/src/v.ts', 'db/schema.ts'],
  imports: [
    ['packages/a/src/x.ts', 'packages/b/src/z.ts'],
    ['packages/b/src/z.ts', 'packages/c/src/v.ts'],
  ],
  packages: [
    { name: '@r/a', dir: 'packages/a' },
    { name: '@r/b', dir: 'packages/b' },
    { name: '@r/c', dir: 'packages/c' },
  ],
});
const tree = createRepoTree(repo.files, repo.packages);
const rules = (contentionDepth = 1, extra: Partial<LeaseRules> = {}): LeaseRules => ({ graph: repo.graph, tree, contentionDepth, serial: ['db/**'], ...extra });

describe('decideLeases: the one lease rule', () => {
  it('grants lanes nobody else holds, and never refuses a holder its own leases', () => {
    expect(decideLeases([], ['packages/a/src/x.ts'], 'run-1', rules())).toEqual({ status: 'granted' });
    expect(decideLeases([lease('packages/b', 'run-1')], ['packages/a/src/x.ts', 'packages/b/src/w.ts'], 'run-1', rules())).toEqual({ status: 'granted' });
  });

  it('keeps two running runs out of one folder neither found at the base: one would create it, the other rely on it', () => {
    const other = [lease('packages/a/src/props/types/by.ts', 'run-2')];
    // run-1's new file in the same new folder (packages/a/src/props/) is refused, in either nesting …
    expect(decideLeases(other, ['packages/a/src/props/table.ts'], 'run-1', rules(0, { extension: true }))).toMatchObject({ status: 'refused', reason: 'overlap', lease: { holder: 'run-2' } });
    expect(decideLeases([lease('packages/a/src/props/table.ts', 'run-2')], ['packages/a/src/props/types/by.ts'], 'run-1', rules(0, { extension: true }))).toMatchObject({ status: 'refused', reason: 'overlap' });
    // … a new file in another new folder, or in a folder the base has, is not;
    expect(decideLeases(other, ['packages/a/src/other/table.ts'], 'run-1', rules(0, { extension: true }))).toEqual({ status: 'granted' });
    expect(decideLeases([lease('packages/a/src/new.ts', 'run-2')], ['packages/a/src/newer.ts'], 'run-1', rules(0, { extension: true }))).toEqual({ status: 'granted' });
    // … and a lease taken before any run starts (not an extension) is judged by its paths alone.
    expect(decideLeases(other, ['packages/a/src/props/table.ts'], 'run-1', rules(0))).toEqual({ status: 'granted' });
  });

  it('refuses a lane another holder\'s lease covers, names the holder and the lease', () => {
    const verdict = decideLeases([lease('packages/b', 'run-2')], ['packages/a/src/y.ts', 'packages/b/src/w.ts'], 'run-1', rules());
    expect(verdict).toMatchObject({ status: 'refused', reason: 'overlap', lane: 'packages/b/src/w.ts', lease: { holder: 'run-2', lane: 'packages/b' } });
    expect(verdict.status === 'refused' && verdict.message).toContain('run-2 holds packages/b until');
  });

  it('resolves a lane name through the tree: a lease on `@r/b` covers packages/b', () => {
    expect(decideLeases([lease('@r/b', 'run-2')], ['packages/b/src/w.ts'], 'run-1', rules())).toMatchObject({ status: 'refused', reason: 'overlap' });
    // Without a tree only the spellings are compared.
    expect(decideLeases([lease('@r/b', 'run-2')], ['packages/b/src/w.ts'], 'run-1')).toEqual({ status: 'granted' });
  });

  it('refuses a file one import away from another holder\'s lease, with the import chain as evidence, both directions', () => {
    const importer = decideLeases([lease('packages/b/src/z.ts', 'run-2')], ['packages/a/src/x.ts'], 'run-1', rules());
    expect(importer).toMatchObject({ status: 'refused', reason: 'import', lane: 'packages/a/src/x.ts', via: 'packages/a/src/x.ts imports packages/b/src/z.ts' });
    const imported = decideLeases([lease('packages/a/src/x.ts', 'run-2')], ['packages/b/src/z.ts'], 'run-1', rules());
    expect(imported).toMatchObject({ status: 'refused', reason: 'import', via: 'packages/a/src/x.ts imports packages/b/src/z.ts' });
    // Two hops apart: free at depth 1, contended at depth 2, and never with contention off.
    expect(decideLeases([lease('packages/c/src/v.ts', 'run-2')], ['packages/a/src/x.ts'], 'run-1', rules(1)).status).toBe('granted');
    expect(decideLeases([lease('packages/c/src/v.ts', 'run-2')], ['packages/a/src/x.ts'], 'run-1', rules(2))).toMatchObject({
      reason: 'import',
      via: 'packages/a/src/x.ts → packages/b/src/z.ts → packages/c/src/v.ts',
    });
    expect(decideLeases([lease('packages/b/src/z.ts', 'run-2')], ['packages/a/src/x.ts'], 'run-1', rules(0)).status).toBe('granted');
  });

  it('keeps two root files of two holders apart (they conflict in a plan too)', () => {
    expect(decideLeases([lease('pnpm-lock.yaml', 'run-2')], ['package.json'], 'run-1', rules())).toMatchObject({ status: 'refused', reason: 'root', lane: 'package.json' });
    expect(decideLeases([lease('pnpm-lock.yaml', 'run-2')], ['package.json'], 'run-1', { graph: null, tree: null, contentionDepth: 1, serial: [] })).toMatchObject({ status: 'refused', reason: 'root' });
    // `waves lease acquire` (no rules) compares paths only, as it always did.
    expect(decideLeases([lease('pnpm-lock.yaml', 'run-2')], ['package.json'], 'run-1').status).toBe('granted');
  });

  it('makes a serial path wait while anyone else holds anything', () => {
    expect(decideLeases([lease('packages/a', 'run-2')], ['db/schema.ts'], 'run-1', rules())).toMatchObject({ status: 'refused', reason: 'serial', lane: 'db/schema.ts' });
    expect(decideLeases([], ['db/schema.ts'], 'run-1', rules()).status).toBe('granted');
    // A folder an issue's leaves were rolled up to is not searched for serial files.
    expect(decideLeases([lease('packages/a', 'run-2')], ['db'], 'run-1', rules(1, { serial: ['db/schema.ts'] })).status).toBe('granted');
  });

  it('never grows a parallel run\'s fence onto a root file, the whole repository or a serial path', () => {
    const own = [lease('packages/a/src/x.ts', 'run-1')];
    expect(decideLeases(own, ['tsconfig.json'], 'run-1', rules(1, { extension: true }))).toMatchObject({ status: 'refused', reason: 'root', lane: 'tsconfig.json' });
    expect(decideLeases(own, ['.'], 'run-1', rules(1, { extension: true }))).toMatchObject({ status: 'refused', reason: 'root' });
    expect(decideLeases(own, ['db/schema.ts'], 'run-1', rules(1, { extension: true }))).toMatchObject({ status: 'refused', reason: 'serial' });
    expect(decideLeases(own, ['packages/c/src/new.ts'], 'run-1', rules(1, { extension: true }))).toEqual({ status: 'granted' });
    // Any file at the top of the repository is a root file, present or new, with a tree or without:
    // not only the built-in globs (an install script, the README). (A Dockerfile is a control file first.)
    for (const file of ['install.sh', 'README.md', 'backlog.json', 'LICENSE', 'CHANGELOG.md']) {
      expect(decideLeases(own, [file], 'run-1', rules(1, { extension: true })), file).toMatchObject({ status: 'refused', reason: 'root', lane: file });
      expect(decideLeases(own, [file], 'run-1', { graph: null, tree: null, contentionDepth: 1, serial: [], extension: true }), file).toMatchObject({ status: 'refused', reason: 'root' });
    }
    expect(decideLeases(own, ['Dockerfile'], 'run-1', rules(1, { extension: true }))).toMatchObject({ status: 'refused', reason: 'control' });
    // A folder at the top is no root file.
    expect(decideLeases(own, ['packages/c'], 'run-1', rules(1, { extension: true }))).toEqual({ status: 'granted' });
    // A serial run holds the whole repository: it may write anywhere but a control file.
    expect(decideLeases([lease('.', 'run-1')], ['CHANGELOG.md'], 'run-1', rules(1, { extension: true }))).toEqual({ status: 'granted' });
    expect(decideLeases([lease('.', 'run-1')], ['tsconfig.json'], 'run-1', rules(1, { extension: true }))).toMatchObject({ status: 'refused', reason: 'control' });
  });

  it('never grows a running run\'s fence onto a control file (one a tool or agent runs or obeys), at any depth; the plan\'s rule is unchanged', () => {
    const own = [lease('packages/a/src/x.ts', 'run-1')];
    const control = [
      '.npmrc', '.pnpmfile.cjs', '.yarnrc.yml', 'waves.config.json', '.gitattributes', '.gitmodules', '.gitignore', 'packages/c/.gitignore',
      '.husky/pre-commit', '.claude/settings.json', '.claude/settings.local.json', '.mcp.json', 'opencode.json', 'opencode.jsonc', '.opencode/plugins/x.js',
      '.envrc', '.vscode/settings.json', 'CLAUDE.md', 'packages/c/AGENTS.md', 'packages/c/package.json', 'packages/c/tsconfig.json', 'packages/c/tsconfig.build.json',
      '.github/workflows/ci.yml', 'packages/c/vite.config.ts', 'vitest.config.mjs', 'packages/c/.eslintrc.cjs', '.yarn/releases/yarn.cjs',
      // In another case: on a case-insensitive checkout (macOS, Windows) the same files.
      '.Claude/settings.json', '.Husky/pre-commit', 'CLAUDE.MD', '.GitAttributes', 'packages/c/PACKAGE.JSON', 'packages/c/tsconfig.JSON', 'Vite.Config.TS',
      // A nested repository's config and hooks, in any case.
      '.GIT/config', 'packages/c/.git/config', 'packages/c/.git/hooks/pre-commit',
      // Config files tools load, test workspaces, other agents' rules.
      'babel.config.json', 'packages/c/jest.config.json', 'vitest.workspace.ts', '.cursorrules', '.windsurfrules', '.clinerules/rules.md', '.windsurf/rules/x.md',
      // More agents' instructions and hooks, task runners and hook managers, environment files (red team 4).
      'packages/c/AGENT.md', 'packages/c/.rules', 'packages/c/mise.toml', '.kiro/hooks/x.kiro.hook', 'QWEN.md', '.kilocode/rules.md', '.amazonq/rules/x.md',
      'packages/c/Makefile', 'justfile', 'Taskfile.yml', '.pre-commit-config.yaml', 'lefthook.yml', 'packages/c/project.json', 'turbo.json', 'deno.json', 'bunfig.toml',
      'packages/c/conftest.py', '.env', 'packages/c/.env.local', '.idea/workspace.xml', '.zed/settings.json',
      // Native builds at install, more linters and runners, and look-alike letters (red team G7).
      'packages/c/binding.gyp', 'composer.json', 'packages/c/pylintrc', '.pylintrc', 'mypy.ini', '.pytest.ini', '.rspec', '.rubocop.yml', 'karma.conf.js', '.storybook/main.ts', 'Procfile',
      '.hu\u017fky/pre-commit', 'packages/c/\uff50ackage.json',
      // Names Windows opens as another: trailing dots and spaces, the content stream (red team H).
      'packages/c/package.json.', 'packages/c/package.json ', 'packages/c/Package.Json. .', '.github./workflows/ci.yml', 'packages/c/package.json::$DATA', '.claude /settings.json',
      'gulpfile.js', 'packages/c/Gruntfile.coffee', 'requirements.txt', 'requirements-dev.txt', 'CMakeLists.txt', 'pnpm-workspace.yaml', 'go.mod', '.lfsconfig', 'compose.yaml', 'Vagrantfile',
    ];
    for (const file of control) {
      expect(isControlFile(file), file).toBe(true);
      expect(decideLeases(own, [file], 'run-1', rules(1, { extension: true })), file).toMatchObject({ status: 'refused' });
      expect(decideLeases(own, [file], 'run-1', rules(1, { extension: true })).status === 'refused' && ['control', 'root'].includes((decideLeases(own, [file], 'run-1', rules(1, { extension: true })) as { reason: string }).reason), file).toBe(true);
    }
    expect(decideLeases(own, ['packages/c/package.json'], 'run-1', rules(1, { extension: true }))).toMatchObject({ reason: 'control' });
    for (const file of ['packages/c/src/config.ts', 'packages/c/src/rc.ts', 'docs/guide.md', 'packages/c/src/new.ts']) expect(isControlFile(file), file).toBe(false);
    // A plan (no extension) is decided as before.
    expect(decideLeases(own, ['packages/c/package.json'], 'run-1', rules(1)).status).toBe('granted');
  });

  it('never grows a running run\'s fence onto CI configuration of any forge, nor onto the build files and tool configs other ecosystems run (red team E, E04)', () => {
    const own = [lease('packages/a/src/x.ts', 'run-1')];
    // CI folders and files at the top: root files (shared by every package) and control files.
    const ci = [
      '.circleci/config.yml', '.gitlab/ci/build.yml', '.gitlab-ci.yml', '.gitea/workflows/ci.yml', '.forgejo/workflows/ci.yml', '.buildkite/pipeline.yml',
      '.woodpecker/build.yml', '.woodpecker.yml', '.semaphore/semaphore.yml', '.tekton/pipeline.yaml', '.azure-pipelines/ci.yml', 'azure-pipelines.yml',
      'bitbucket-pipelines.yml', '.travis.yml', 'Jenkinsfile', '.drone.yml', 'appveyor.yml', '.ci/run', '.github/workflows/ci.yml',
    ];
    for (const file of ci) {
      expect(isControlFile(file), file).toBe(true);
      for (const treeOrNot of [rules(1, { extension: true }), { graph: null, tree: null, contentionDepth: 1, serial: [], extension: true }]) {
        expect(decideLeases(own, [file], 'run-1', treeOrNot), file).toMatchObject({ status: 'refused', reason: 'root', lane: file });
      }
    }
    // Build files and tool configs, at any depth: control files, whoever holds what.
    const tools = [
      'packages/c/.cargo/config.toml', 'packages/c/.mvn/extensions.xml', '.mvn/jvm.config', '.config/dotnet-tools.json', 'packages/c/.config/mise.toml',
      'gradle/wrapper/gradle-wrapper.properties', 'packages/c/gradle/wrapper/gradle-wrapper.jar', 'packages/c/pyproject.toml', 'packages/c/setup.cfg',
      'packages/c/setup.py', 'packages/c/pytest.ini', 'packages/c/tox.ini', 'packages/c/noxfile.py', 'packages/c/conftest.py', 'packages/c/build.rs',
      'packages/c/Cargo.toml', 'packages/c/Directory.Build.props', 'packages/c/Directory.Build.targets', 'packages/c/build.gradle', 'packages/c/settings.gradle.kts',
      'packages/c/gradlew', 'packages/c/mvnw', 'packages/c/pom.xml', 'packages/c/mise.local.toml', 'packages/c/mise.dev.toml', 'packages/c/.mise.local.toml',
      'packages/c/Taskfile.dist.yml', 'packages/c/lefthook-local.yml', 'packages/c/Makefile', 'packages/c/justfile', 'packages/c/App.csproj',
      // In any case, as a case-insensitive checkout reads them.
      'packages/c/CARGO.TOML', 'packages/c/.Cargo/config.toml', 'packages/c/Gradle/Wrapper/gradle-wrapper.properties',
    ];
    for (const file of tools) {
      expect(isControlFile(file), file).toBe(true);
      expect(decideLeases(own, [file], 'run-1', rules(1, { extension: true })), file).toMatchObject({ status: 'refused', reason: 'control', lane: file });
    }
    // Names that only look alike stay ordinary files.
    for (const file of ['packages/c/src/gradle.ts', 'packages/c/src/wrapper/x.ts', 'packages/c/src/cargo.ts', 'docs/ci.md', 'packages/c/src/build.ts', 'packages/c/config/x.ts', 'packages/c/src/mise.ts']) {
      expect(isControlFile(file), file).toBe(false);
    }
  });

  it('throws for a lane with no canonical spelling, never deciding on a guess', () => {
    expect(() => decideLeases([], ['../etc/passwd'], 'run-1', rules())).toThrow(/leaves the repository/);
    expect(() => decideLeases([], ['/etc/passwd'], 'run-1')).toThrow(/absolute/);
  });
});

/** A random repository, leases of other holders on some of its files, and lanes asked for. */
const caseArb = repoArb.chain((random: RandomRepo) =>
  fc.record({
    random: fc.constant(random),
    held: fc.array(fc.record({ path: fc.constantFrom(...random.files, ...random.packages.map((p) => p.dir)), holder: fc.constantFrom('run-1', 'run-2', 'run-3') }), { maxLength: 4 }),
    lanes: fc.uniqueArray(fc.constantFrom(...random.files, ...random.packages.map((p) => `${p.dir}/src`), 'packages/p0/src/new.ts'), { minLength: 1, maxLength: 3 }),
    depth: fc.integer({ min: 0, max: 2 }),
  }),
);

describe('decideLeases: properties', () => {
  it('should never grant a lane that overlaps another holder\'s lease', () => {
    fc.assert(
      fc.property(caseArb, ({ random, held, lanes, depth }) => {
        const index = makeRepo({ files: random.files, imports: random.edges, packages: random.packages });
        const active = held.map((h, i) => lease(h.path, h.holder, `l${i}`));
        const verdict = decideLeases(active, lanes, 'run-1', { graph: index.graph, tree: createRepoTree(index.files, index.packages), contentionDepth: depth, serial: [] });
        fc.pre(verdict.status === 'granted');
        for (const l of active) if (l.holder !== 'run-1') for (const lane of lanes) expect(lanesOverlap(l.lane, lane)).toBe(false);
      }),
    );
  });

  it('should never grant a file within the contention depth of another holder\'s leased file', () => {
    fc.assert(
      fc.property(caseArb, ({ random, held, lanes, depth }) => {
        const index = makeRepo({ files: random.files, imports: random.edges, packages: random.packages });
        const active = held.map((h, i) => lease(h.path, h.holder, `l${i}`));
        const verdict = decideLeases(active, lanes, 'run-1', { graph: index.graph, tree: createRepoTree(index.files, index.packages), contentionDepth: depth, serial: [] });
        fc.pre(verdict.status === 'granted');
        const files = lanes.filter((lane) => index.graph.hasNode(lane));
        const near = new Set([...dependenciesOf(index.graph, files, depth).keys(), ...dependentsOf(index.graph, files, depth).keys()]);
        for (const l of active) if (l.holder !== 'run-1') expect(near.has(l.lane)).toBe(false);
      }),
    );
  });

  it('should always give an import refusal a chain of real imports from a lane to a leased file', () => {
    fc.assert(
      fc.property(caseArb, ({ random, held, lanes, depth }) => {
        const index = makeRepo({ files: random.files, imports: random.edges, packages: random.packages });
        const active = held.map((h, i) => lease(h.path, h.holder, `l${i}`));
        const verdict = decideLeases(active, lanes, 'run-1', { graph: index.graph, tree: createRepoTree(index.files, index.packages), contentionDepth: depth, serial: [] });
        fc.pre(verdict.status === 'refused' && verdict.reason === 'import');
        if (verdict.status !== 'refused') return;
        const chain = verdict.via!.includes(' imports ') ? verdict.via!.split(' imports ') : verdict.via!.split(' → ');
        expect(chain.length - 1).toBeLessThanOrEqual(depth);
        for (let i = 0; i + 1 < chain.length; i++) expect(index.graph.hasEdge(chain[i]!, chain[i + 1]!)).toBe(true);
        expect(verdict.lease!.holder).not.toBe('run-1');
      }),
    );
  });

  it('should decide as the journal always did when given no rules: paths only', () => {
    fc.assert(
      fc.property(caseArb, ({ held, lanes }) => {
        const active = held.map((h, i) => lease(h.path, h.holder, `l${i}`));
        const verdict = decideLeases(active, lanes, 'run-1');
        const byPath = lanes.every((lane) => decideAcquire(active, lane, 'run-1').status === 'acquired');
        expect(verdict.status === 'granted').toBe(byPath);
      }),
    );
  });
});
