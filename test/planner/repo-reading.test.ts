/**
 * A cloned repository is untrusted: the graph build reads only regular files inside its root, no
 * larger than the limit, and reports every file it refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRepoGraph, loadRepo, readRegularFile, readRegularFileSync, summarizeGraph } from '@waves/planner';
import { TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo;
const outside = mkdtempSync(path.join(tmpdir(), 'waves-outside-'));
beforeAll(async () => {
  writeFileSync(path.join(outside, 'secret.ts'), "import './leak-if-read';\n");
  repo = await TempRepo.create({
    'src/main.ts': "import './real';\nimport './alias';\nimport './zero';\nimport './big';\n",
    'src/real.ts': "import './leaf';\n",
    'src/leaf.ts': '',
    'src/pipe.ts': '',
    'src/big.ts': `import './leaf';\n// ${'x'.repeat(3 * 1024 * 1024)}\n`,
  });
  // Tracked links: one to another file of the repository, one to a device, one out of the root.
  symlinkSync('real.ts', path.join(repo.root, 'src/alias.ts'));
  symlinkSync('/dev/zero', path.join(repo.root, 'src/zero.ts'));
  symlinkSync(path.join(outside, 'secret.ts'), path.join(repo.root, 'src/secret.ts'));
  await repo.git('add', '-A');
  await repo.git('-c', 'user.name=w', '-c', 'user.email=w@example.invalid', 'commit', '-qm', 'links');
  // A tracked file replaced by a FIFO in the work tree: opening it for reading would block forever.
  unlinkSync(path.join(repo.root, 'src/pipe.ts'));
  execFileSync('mkfifo', [path.join(repo.root, 'src/pipe.ts')]);
}, 60_000);
afterAll(async () => {
  await repo.dispose();
  rmSync(outside, { recursive: true, force: true });
});

describe('reading a repository', () => {
  it('skips links out of the root, devices, FIFOs and files over the size limit, reports each, and reads a link to a file inside', async () => {
    const graph = await buildRepoGraph(repo.root, { cache: false });
    expect(graph.getAttribute('skipped')).toEqual([
      { file: 'src/big.ts', reason: 'larger than 2 MB (3 MB)' },
      { file: 'src/pipe.ts', reason: 'not a regular file (a FIFO, socket or device)' },
      { file: 'src/secret.ts', reason: 'a symbolic link leading outside the repository' },
      { file: 'src/zero.ts', reason: 'a symbolic link leading outside the repository' },
    ]);
    expect(graph.outNeighbors('src/alias.ts')).toEqual(['src/leaf.ts']);
    expect(graph.getAttribute('unresolved').map((u) => u.specifier)).not.toContain('./leak-if-read');
  });

  it('asks the caller about what the descriptor opened before reading a byte (the check a swapped folder cannot race)', () => {
    const file = path.join(repo.root, 'src/real.ts');
    const seen: number[] = [];
    expect(readRegularFileSync(file, { maxBytes: 1024, opened: (fd) => (seen.push(fd), false) })).toMatchObject({ ok: false, kind: 'link' });
    expect(seen).toHaveLength(1);
    expect(readRegularFileSync(file, { maxBytes: 1024, opened: () => true })).toEqual({ ok: true, text: "import './leaf';\n" });
  });

  it('takes a smaller limit when asked, and reports the skipped files in the graph report', async () => {
    const graph = await buildRepoGraph(repo.root, { cache: false, maxSourceBytes: 10 });
    expect(graph.getAttribute('skipped').map((s) => s.file)).toContain('src/main.ts');
    const loaded = await loadRepo(repo.root, { cache: false });
    expect(summarizeGraph(loaded.graph, { root: '.', head: null, packages: [] }).skipped.map((s) => s.file)).toEqual(['src/big.ts', 'src/pipe.ts', 'src/secret.ts', 'src/zero.ts']);
  });
});

describe('reading one file waves reads back (readRegularFile)', () => {
  it('reads a regular file whole, and refuses a FIFO, a device, a directory, a link and a file over the limit, each at once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'waves-regular-'));
    try {
      writeFileSync(path.join(dir, 'ok.json'), '{"a":1}');
      writeFileSync(path.join(dir, 'big'), 'x'.repeat(1500));
      execFileSync('mkfifo', [path.join(dir, 'fifo')]);
      symlinkSync(path.join(dir, 'ok.json'), path.join(dir, 'link'));
      symlinkSync('/dev/zero', path.join(dir, 'zero'));
      const options = { maxBytes: 1000 };
      for (const read of [readRegularFileSync, readRegularFile]) {
        const ok = await read(path.join(dir, 'ok.json'), options);
        expect(ok.ok && ok.text).toBe('{"a":1}');
        const refusals = await Promise.all(['fifo', 'zero', 'link', 'big', 'missing', '.'].map(async (name) => {
          const result = await read(path.join(dir, name), options);
          return result.ok ? 'read' : `${result.kind}: ${result.reason}`;
        }));
        expect(refusals).toEqual([
          'not-regular: is not a regular file (a FIFO)',
          'link: is a symbolic link (not followed)',
          'link: is a symbolic link (not followed)',
          'too-large: is larger than 1000 bytes (1.5 KB)',
          'missing: no such file',
          'not-regular: is not a regular file (a directory)',
        ]);
        // A link is followed only when asked, and what it leads to is checked the same.
        const followed = await read(path.join(dir, 'link'), { ...options, followLinks: true });
        expect(followed.ok).toBe(true);
        const device = await read(path.join(dir, 'zero'), { ...options, followLinks: true });
        expect(device.ok ? 'read' : device.reason).toBe('is not a regular file (a socket or device)');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tsconfig extends chains', () => {
  it('skips, with a reason, a tsconfig whose extends leaves the repository or names a device, a FIFO or a link out; follows a package through node_modules', async () => {
    const store = mkdtempSync(path.join(tmpdir(), 'waves-store-'));
    const fifo = path.join(store, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    // A package installed the pnpm way: node_modules/@tsconfig/base is a link into a store's node_modules.
    const pkg = path.join(store, 'node_modules', '.pnpm', 'base@1', 'node_modules', '@tsconfig', 'base');
    const chain = await TempRepo.create({
      'zero/tsconfig.json': '{"extends": "/dev/zero"}',
      'zero/main.ts': "import './leaf';\n",
      'zero/leaf.ts': '',
      'updevice/tsconfig.json': '{"extends": "../../../../../../../../../../dev/zero"}',
      'updevice/main.ts': "import './leaf';\n",
      'updevice/leaf.ts': '',
      'fifo/tsconfig.json': JSON.stringify({ extends: fifo }),
      'fifo/main.ts': "import './leaf';\n",
      'fifo/leaf.ts': '',
      'passwd/tsconfig.json': '{"extends": "/etc/passwd"}',
      'passwd/main.ts': "import './leaf';\n",
      'passwd/leaf.ts': '',
      'sneaky/tsconfig.json': '{"extends": "./node_modules/sneaky.json"}',
      'sneaky/main.ts': "import './leaf';\n",
      'sneaky/leaf.ts': '',
      'pkg/tsconfig.json': '{"extends": "@tsconfig/base/tsconfig.json"}',
      'pkg/main.ts': "import '@/leaf';\n",
      'pkg/src/leaf.ts': '',
    });
    try {
      execFileSync('mkdir', ['-p', pkg, path.join(chain.root, 'pkg/node_modules/@tsconfig'), path.join(chain.root, 'sneaky/node_modules')]);
      writeFileSync(path.join(pkg, 'tsconfig.json'), JSON.stringify({ compilerOptions: { paths: { '@/*': ['${configDir}/src/*'] } } }));
      symlinkSync(pkg, path.join(chain.root, 'pkg/node_modules/@tsconfig/base'));
      symlinkSync('/etc/passwd', path.join(chain.root, 'sneaky/node_modules/sneaky.json'));
      const graph = await buildRepoGraph(chain.root, { cache: false });
      const skipped = Object.fromEntries(graph.getAttribute('skipped').map((s) => [s.file, s.reason]));
      expect(skipped).toEqual({
        'fifo/tsconfig.json': `its extends chain names ${fifo}, which is outside the repository and not a package's (not read)`,
        'passwd/tsconfig.json': 'its extends chain names /etc/passwd, which is outside the repository and not a package\'s (not read)',
        'sneaky/tsconfig.json': `its extends chain names ${path.join(chain.root, 'sneaky/node_modules/sneaky.json')}, which is outside the repository and not a package's (not read)`,
        'updevice/tsconfig.json': 'its extends chain names /dev/zero, which is outside the repository and not a package\'s (not read)',
        'zero/tsconfig.json': 'its extends chain names /dev/zero, which is outside the repository and not a package\'s (not read)',
      });
      // A skipped tsconfig counts as none: relative imports still resolve.
      expect(graph.outNeighbors('zero/main.ts')).toEqual(['zero/leaf.ts']);
      expect(graph.outNeighbors('passwd/main.ts')).toEqual(['passwd/leaf.ts']);
      // The package's config was read: its paths alias resolves.
      expect(graph.outNeighbors('pkg/main.ts')).toEqual(['pkg/src/leaf.ts']);
      // A warm cache, which resolves nothing again, still reports them.
      await buildRepoGraph(chain.root);
      const warm = await buildRepoGraph(chain.root);
      expect(Object.fromEntries(warm.getAttribute('skipped').map((s) => [s.file, s.reason]))).toEqual(skipped);
    } finally {
      await chain.dispose();
      rmSync(store, { recursive: true, force: true });
    }
  });
  /** A chain of `links` small files under `dir`, `t0.json` → `t1.json` → …, the last with `last`. */
  function chainFiles(dir: string, links: number, last: unknown): Record<string, string> {
    const files: Record<string, string> = {};
    for (let i = 0; i < links; i++) files[`${dir}/t${i}.json`] = JSON.stringify({ extends: `./t${i + 1}.json` });
    files[`${dir}/t${links}.json`] = JSON.stringify(last);
    return files;
  }

  it('skips, with its reason, a tsconfig whose extends chain is 2,000 files long, through get-tsconfig and through TypeScript; reads one of 64', async () => {
    const alias = { compilerOptions: { paths: { '@x': ['../src/b.ts'] } } };
    const chain = await TempRepo.create({
      'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }),
      // Relative links: get-tsconfig reads them.
      'long/tsconfig.json': JSON.stringify({ extends: '../c/t0.json' }),
      'long/a.ts': "import './b';\nimport '@x';\n",
      'long/b.ts': '',
      ...chainFiles('c', 2000, alias),
      // Into a workspace package that was never installed: get-tsconfig gives up, TypeScript reads it.
      'viapkg/tsconfig.json': JSON.stringify({ extends: '@ws/config/t0.json' }),
      'viapkg/a.ts': "import './b';\n",
      'viapkg/b.ts': '',
      'packages/config/package.json': JSON.stringify({ name: '@ws/config' }),
      ...chainFiles('packages/config', 2000, {}),
      // 63 bases and the tsconfig: 64 files, all read; the last base's alias resolves.
      'short/tsconfig.json': JSON.stringify({ extends: '../d/t0.json' }),
      'short/a.ts': "import '@x';\n",
      ...chainFiles('d', 62, alias),
      'src/b.ts': '',
    });
    try {
      const graph = await buildRepoGraph(chain.root, { cache: false });
      const skipped = Object.fromEntries(graph.getAttribute('skipped').map((s) => [s.file, s.reason]));
      expect(skipped).toEqual({
        'long/tsconfig.json': `its extends chain names ${path.join(chain.root, 'c/t63.json')}, past the 64 files waves follows (not read)`,
        'viapkg/tsconfig.json': expect.stringMatching(/^its extends chain names \S+\/t\d+\.json, past the 64 files waves follows \(not read\)$/),
      });
      // A skipped tsconfig counts as none: relative imports still resolve, its alias does not.
      expect(graph.outNeighbors('long/a.ts')).toEqual(['long/b.ts']);
      expect(graph.outNeighbors('viapkg/a.ts')).toEqual(['viapkg/b.ts']);
      expect(graph.outNeighbors('short/a.ts')).toEqual(['src/b.ts']);
    } finally {
      await chain.dispose();
    }
  });

  it('skips, with its reason, a tsconfig whose extends array names one 100 KB base 20,000 times: past the 16 MB a chain reads', async () => {
    // get-tsconfig and TypeScript both parse the base once for each name: 2 GB of JSON.
    const base = { compilerOptions: { paths: Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`k${i}/*`, [`x${i}/*`]])) } };
    const chain = await TempRepo.create({
      'base.json': JSON.stringify(base),
      'tsconfig.json': JSON.stringify({ extends: Array.from({ length: 20_000 }, () => './base.json') }),
      'src/a.ts': "import './b';\n",
      'src/b.ts': '',
    });
    try {
      const graph = await buildRepoGraph(chain.root, { cache: false });
      expect(graph.getAttribute('skipped')).toEqual([
        { file: 'tsconfig.json', reason: `its extends chain names ${path.join(chain.root, 'base.json')}, past the 16 MB waves reads for one chain (a file read again counts again) (not read)` },
      ]);
      expect(graph.outNeighbors('src/a.ts')).toEqual(['src/b.ts']);
    } finally {
      await chain.dispose();
    }
  });

  it('skips, with its reason, a tsconfig whose extends array names 80,000 packages that are not there', async () => {
    // TypeScript looks for each in every ancestor's node_modules: 86 s of look-ups.
    const chain = await TempRepo.create({
      'tsconfig.json': JSON.stringify({ extends: Array.from({ length: 80_000 }, (_, i) => `pkg${i.toString(36)}/tsconfig.json`) }),
      'src/a.ts': "import './b';\n",
      'src/b.ts': '',
    });
    try {
      const graph = await buildRepoGraph(chain.root, { cache: false });
      expect(graph.getAttribute('skipped')).toEqual([
        { file: 'tsconfig.json', reason: expect.stringMatching(/^its extends chain names \S+, past the 4,096 missing files waves looks up for one chain \(not read\)$/) },
      ]);
      expect(graph.outNeighbors('src/a.ts')).toEqual(['src/b.ts']);
    } finally {
      await chain.dispose();
    }
  });
});
