/**
 * The harvest's pure parts: the fence audit of changed paths and the accuracy of a predicted
 * scope against the files an agent changed — on constructed cases with known answers and as
 * properties over random fences and changes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditFence, fenceWithCompanions, inFence, isControlFile, isRootFile, isUnnamedControlFile, ROOT_FILE_GLOBS, scopeAccuracy, sumAccuracy, touchedPaths, type ChangedPath, type PredictedLeaf } from '@waves/planner';

describe('fence audit', () => {
  const fence = ['packages/api/src/routes/checkout.ts', 'packages/web/'];

  it('puts each changed path inside or outside the fence; a directory leaf covers its subtree only', () => {
    const audit = auditFence(
      [
        { path: 'packages/api/src/routes/checkout.ts', change: 'modified' },
        { path: 'packages/web/src/deep/new.ts', change: 'added' },
        { path: 'packages/webby/x.ts', change: 'added' },
        { path: 'packages/api/src/routes/checkout.test.ts', change: 'added' },
        { path: 'packages/web', change: 'added' },
      ],
      fence,
      { serial: false },
    );
    expect(audit.inFence.map((c) => c.path)).toEqual(['packages/api/src/routes/checkout.ts', 'packages/web/src/deep/new.ts']);
    expect(audit.outOfFence.map((c) => c.path)).toEqual(['packages/api/src/routes/checkout.test.ts', 'packages/web', 'packages/webby/x.ts']);
  });

  it('flags root files changed by an issue that does not run alone, not by a serial one', () => {
    const changes: ChangedPath[] = [
      { path: 'package.json', change: 'modified' },
      { path: 'pnpm-lock.yaml', change: 'modified' },
      { path: '.github/workflows/ci.yml', change: 'modified' },
      { path: 'packages/api/package-lock.json', change: 'added' },
      { path: 'config/shared.json', change: 'modified' },
      { path: 'packages/api/src/extra.ts', change: 'added' },
    ];
    const plain = auditFence(changes, fence, { serial: false, serialGlobs: ['config/**'] });
    expect(plain.outOfFence.filter((c) => c.root).map((c) => c.path)).toEqual([
      '.github/workflows/ci.yml',
      'config/shared.json',
      'package.json',
      'packages/api/package-lock.json',
      'pnpm-lock.yaml',
    ]);
    expect(plain.outOfFence.find((c) => c.path === 'packages/api/src/extra.ts')?.root).toBe(false);
    const serial = auditFence(changes, fence, { serial: true });
    expect(serial.outOfFence.every((c) => !c.root)).toBe(true);
  });

  it('needs both ends of a rename inside the fence', () => {
    const audit = auditFence(
      [
        { path: 'packages/web/b.ts', change: 'renamed', from: 'packages/web/a.ts' },
        { path: 'packages/web/c.ts', change: 'renamed', from: 'packages/core/c.ts' },
      ],
      fence,
      { serial: false },
    );
    expect(audit.inFence.map((c) => c.path)).toEqual(['packages/web/b.ts']);
    expect(audit.outOfFence.map((c) => c.path)).toEqual(['packages/web/c.ts']);
  });

  it('lets an issue that may edit a manifest update the lockfile its install rewrites', () => {
    const changes: ChangedPath[] = [
      { path: 'package.json', change: 'modified' },
      { path: 'pnpm-lock.yaml', change: 'modified' },
      { path: 'packages/api/package.json', change: 'modified' },
      { path: 'packages/api/package-lock.json', change: 'modified' },
      { path: 'packages/web/yarn.lock', change: 'modified' },
    ];
    const audit = auditFence(changes, ['packages/api/package.json'], { serial: true });
    expect(audit.inFence.map((c) => c.path)).toEqual(['packages/api/package-lock.json', 'packages/api/package.json', 'pnpm-lock.yaml']);
    expect(audit.outOfFence.map((c) => c.path)).toEqual(['package.json', 'packages/web/yarn.lock']);
    expect(auditFence(changes, ['packages/api/src/'], { serial: false }).inFence).toEqual([]);
  });

  it('treats a file at the top of the repository as a root file', () => {
    expect(isRootFile('README.md')).toBe(true);
    expect(isRootFile('tsconfig.base.json')).toBe(true);
    expect(isRootFile('packages/a/tsconfig.json')).toBe(false);
    expect(isRootFile('packages/a/src/x.ts')).toBe(false);
  });

  it('treats the CI configuration of every forge as root files, like .github/ (red team E, E04)', () => {
    for (const file of [
      '.circleci/config.yml', '.gitlab/ci/build.yml', '.gitea/workflows/ci.yml', '.forgejo/workflows/ci.yml', '.buildkite/pipeline.yml', '.woodpecker/build.yml',
      '.semaphore/semaphore.yml', '.tekton/pipeline.yaml', '.azure-pipelines/ci.yml', '.ci/run', '.github/workflows/ci.yml',
    ]) {
      expect(isRootFile(file), file).toBe(true);
      expect(ROOT_FILE_GLOBS.some((glob) => glob === `${file.split('/')[0]}/**`), file).toBe(true);
    }
    for (const file of ['.gitlab-ci.yml', '.woodpecker.yml', 'azure-pipelines.yml', 'bitbucket-pipelines.yml', '.travis.yml', 'Jenkinsfile', '.drone.yml', 'appveyor.yml']) {
      expect(ROOT_FILE_GLOBS, file).toContain(file);
    }
    // Deeper down they are no root files (no forge reads them there), but still control files.
    expect(isRootFile('packages/a/.circleci/config.yml')).toBe(false);
    expect(isControlFile('packages/a/.circleci/config.yml')).toBe(true);
  });

  it('treats config modules with a variant, tools\' JSON configs, lockfiles and Dockerfiles as control files (red team N)', () => {
    for (const file of [
      'vitest.config.base.mts', 'packages/x/webpack.config.babel.js', 'packages/react-router/tsdown.config.rsc.ts', 'packages/m/mikro-orm.config.dev.ts', 'karma.conf.ci.js',
      'knip.json', 'knip.ts', 'nodemon.json', 'biome.json', 'biome.jsonc', 'lerna.json', 'renovate.json', 'vercel.json', 'cypress.json', 'typedoc.json', '.size-limit.js', '.pnp.cjs',
      'pnpm-lock.yaml', 'packages/api/package-lock.json', 'yarn.lock', 'Dockerfile', 'docker/Dockerfile.dev', 'web.dockerfile', '.gitpod.yml', '.node-version',
    ]) {
      expect(isControlFile(file), file).toBe(true);
    }
    for (const file of ['src/config.ts', 'src/lib/config/index.ts', 'src/locales/en.json', 'src/configure.ts', 'docs/dockerfile.md']) expect(isControlFile(file), file).toBe(false);
  });

  it('takes a control file as named only by a file leaf that is the file itself, never by a folder holding it (red team E, E16)', () => {
    const lane = ['packages/core/src/discounts.ts', 'packages/web/'];
    for (const file of [
      'packages/web/.claude/settings.json', 'packages/web/AGENTS.md', 'packages/web/CLAUDE.md', 'packages/web/.envrc', 'packages/web/.npmrc',
      'packages/web/vitest.config.ts', 'packages/web/package.json', 'packages/web/pyproject.toml', 'packages/web/.cargo/config.toml',
    ]) {
      expect(inFence(lane, file), file).toBe(true);
      expect(isUnnamedControlFile(file, lane), file).toBe(true);
      expect(isUnnamedControlFile(file, ['./']), file).toBe(true);
      // The issue that names the file may change it.
      expect(isUnnamedControlFile(file, [...lane, file]), file).toBe(false);
    }
    // Sources under the folder stay covered by it.
    for (const file of ['packages/web/src/components/CartView.tsx', 'packages/web/src/config.ts', 'packages/web/README.md']) expect(isUnnamedControlFile(file, lane), file).toBe(false);
  });

  const segment = fc.constantFrom('a', 'b', 'c', 'src', 'lib');
  const fileName = fc.constantFrom('x.ts', 'package.json', 'pnpm-lock.yaml', 'yarn.lock');
  const pathArb = fc.oneof(
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
    fc.tuple(fc.array(segment, { maxLength: 2 }), fileName).map(([dirs, name]) => [...dirs, name].join('/')),
  );
  const leafArb = fc.tuple(pathArb, fc.boolean()).map(([p, dir]) => (dir ? `${p}/` : p));
  const changeArb: fc.Arbitrary<ChangedPath> = fc.oneof(
    fc.record({ path: pathArb, change: fc.constantFrom('added' as const, 'modified' as const, 'deleted' as const) }),
    fc.record({ path: pathArb, change: fc.constant('renamed' as const), from: pathArb }),
  );

  it('property: every change lands in exactly one list, inside exactly when each touched path is covered', () => {
    fc.assert(
      fc.property(fc.array(leafArb, { maxLength: 5 }), fc.array(changeArb, { maxLength: 12 }), fc.boolean(), (leaves, changes, serial) => {
        const audit = auditFence(changes, leaves, { serial });
        const fence = fenceWithCompanions(leaves);
        expect(audit.inFence.length + audit.outOfFence.length).toBe(changes.length);
        for (const change of audit.inFence) expect(touchedPaths(change).every((p) => inFence(fence, p))).toBe(true);
        for (const change of audit.outOfFence) {
          expect(touchedPaths(change).some((p) => !inFence(fence, p))).toBe(true);
          if (serial) expect(change.root).toBe(false);
        }
        // A lockfile is inside only with a manifest of its own directory or of a workspace package in the fence.
        for (const p of fence.filter((f) => !leaves.includes(f))) {
          expect(p).toMatch(/(?:^|\/)(?:pnpm-lock\.yaml|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|bun\.lockb?)$/);
          expect(leaves.some((l) => l.endsWith('package.json'))).toBe(true);
        }
        // Covered means: the leaf itself, or under a directory leaf.
        for (const change of changes) {
          for (const p of touchedPaths(change)) {
            const covered = leaves.some((leaf) => (leaf.endsWith('/') ? p.startsWith(leaf) : p === leaf));
            expect(inFence(leaves, p)).toBe(covered);
          }
        }
      }),
    );
  });
});

describe('scope accuracy', () => {
  it('measures precision over leaves and recall over files on a constructed case', () => {
    const predicted: PredictedLeaf[] = [
      { path: 'packages/api/src/checkout.ts', sources: ['body'] },
      { path: 'packages/api/src/stripe.ts', sources: ['body'] },
      { path: 'packages/web/', sources: ['label'] },
      { path: 'packages/core/src/money.ts', sources: ['title', 'body'] },
    ];
    const changed = [
      'packages/api/src/checkout.ts', // body leaf
      'packages/web/src/a.ts', // label leaf
      'packages/web/src/b.ts', // label leaf
      'packages/api/src/extra.ts', // missed, same directory as a body leaf
      'packages/core/test/money.test.ts', // missed, same package as a leaf
      'README.md', // missed
    ];
    // extra.ts imports checkout.ts; README.md imports nothing.
    const imports: Record<string, string[]> = { 'packages/api/src/extra.ts': ['packages/api/src/checkout.ts'], 'packages/api/src/checkout.ts': ['packages/api/src/extra.ts'] };
    const a = scopeAccuracy(predicted, changed, ['packages/api', 'packages/web', 'packages/core'], (file) => imports[file] ?? []);
    expect(a.predicted).toBe(4);
    expect(a.touched).toBe(2);
    expect(a.precision).toBe(0.5);
    expect(a.changed).toBe(6);
    expect(a.covered).toBe(3);
    expect(a.recall).toBe(0.5);
    expect(a.missed).toEqual(['README.md', 'packages/api/src/extra.ts', 'packages/core/test/money.test.ts']);
    expect(a.unused).toEqual(['packages/api/src/stripe.ts', 'packages/core/src/money.ts']);
    expect(a.recallByDir).toBe(0.667); // + extra.ts
    expect(a.recallByPackage).toBe(0.833); // + extra.ts, money.test.ts
    expect(a.recallByImports).toBe(0.667); // + extra.ts
    const bySource = Object.fromEntries(a.sources.map((s) => [s.source, s]));
    expect(bySource.body).toMatchObject({ predicted: 3, touched: 1, covered: 1, precision: 0.333, recall: 0.167 });
    expect(bySource.label).toMatchObject({ predicted: 1, touched: 1, covered: 2, precision: 1, recall: 0.333 });
    expect(bySource.title).toMatchObject({ predicted: 1, touched: 0, covered: 0, precision: 0 });
    expect(bySource.config).toBeUndefined();
  });

  it('sums runs as micro-averages', () => {
    const one = scopeAccuracy([{ path: 'a.ts', sources: ['body'] }], ['a.ts']);
    const two = scopeAccuracy([{ path: 'b.ts', sources: ['body'] }, { path: 'c.ts', sources: ['config'] }], ['b.ts', 'x.ts', 'y.ts']);
    const total = sumAccuracy([one, two]);
    expect(total.runs).toBe(2);
    expect(total.precision).toBe(0.667); // 2 of 3 leaves
    expect(total.recall).toBe(0.5); // 2 of 4 files
    expect(total.sources.map((s) => s.source)).toEqual(['body', 'config']);
    expect(sumAccuracy([]).precision).toBeNull();
  });

  const fileArb = fc.constantFrom('p/a/x.ts', 'p/a/y.ts', 'p/b/z.ts', 'p/b/sub/w.ts', 'q/v.ts', 'r.md');
  const predictedArb = fc.array(
    fc.record({ path: fc.constantFrom('p/a/x.ts', 'p/a/', 'p/b/', 'p/b/sub/w.ts', 'q/v.ts', 'r.md', 'q/'), sources: fc.subarray(['title', 'body', 'label', 'config'] as const, { minLength: 1 }) }),
    { maxLength: 5 },
  );

  it('property: figures stay within bounds, coarser granularity never lowers recall, more leaves never lower it', () => {
    fc.assert(
      fc.property(predictedArb, fc.array(fileArb, { maxLength: 8 }), predictedArb, (predicted, changed, extra) => {
        const a = scopeAccuracy(predicted, changed, ['p/a', 'p/b', 'q']);
        expect(a.covered + a.missed.length).toBe(new Set(changed).size);
        expect(a.touched + a.unused.length).toBe(predicted.length);
        for (const value of [a.precision, a.recall, a.recallByDir, a.recallByPackage]) if (value !== null) expect(value >= 0 && value <= 1).toBe(true);
        expect(a.coveredByDir).toBeGreaterThanOrEqual(a.covered);
        expect(a.coveredByPackage).toBeGreaterThanOrEqual(a.covered);
        expect(a.coveredByImports).toBe(a.covered); // no graph: imports add nothing
        for (const s of a.sources) expect(s.covered).toBeLessThanOrEqual(a.covered);
        const wider = scopeAccuracy([...predicted, ...extra], changed, ['p/a', 'p/b', 'q']);
        expect(wider.covered).toBeGreaterThanOrEqual(a.covered);
        const summed = sumAccuracy([a]);
        expect(summed.precision).toBe(a.precision);
        expect(summed.recall).toBe(a.recall);
      }),
    );
  });
});
