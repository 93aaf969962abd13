import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { lanesOverlap } from '@waves/planner';
import { TableHeaderSchema, TableLeaseSchema, type TableLease } from '@waves/dispatch';

/** A bare repository on disk standing for the team's remote, and clones of it standing for machines. */
export class LeaseRemote {
  private constructor(readonly dir: string) {}

  get bare(): string {
    return path.join(this.dir, 'remote.git');
  }

  static async create(): Promise<LeaseRemote> {
    const remote = new LeaseRemote(await mkdtemp(path.join(tmpdir(), 'waves-lease-remote-')));
    await execa('git', ['init', '-q', '--bare', '-b', 'main', remote.bare]);
    return remote;
  }

  /** A clone of the remote (`origin`), with one commit of `files` pushed from the first. */
  async clone(name: string, files: Record<string, string> = { 'README.md': '# x\n' }): Promise<string> {
    const root = path.join(this.dir, name);
    await execa('git', ['clone', '-q', this.bare, root]);
    const { writeFile, mkdir } = await import('node:fs/promises');
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), content);
    }
    const git = (...args: string[]) => execa('git', ['-c', 'user.name=w', '-c', 'user.email=w@example.invalid', ...args], { cwd: root });
    const remoteHasMain = (await execa('git', ['ls-remote', this.bare, 'refs/heads/main'])).stdout.trim() !== '';
    if (remoteHasMain) await git('pull', '-q', 'origin', 'main');
    else {
      await git('checkout', '-q', '-b', 'main');
      await git('add', '-A');
      await git('commit', '-qm', 'initial');
      await git('push', '-q', 'origin', 'main');
    }
    return root;
  }

  /** Every table the ref ever held, oldest first: its commit, epoch and leases. */
  async history(ref = 'refs/waves/leases'): Promise<{ commit: string; epoch: number; at: number; leases: TableLease[] }[]> {
    const git = (...args: string[]) => execa('git', ['--git-dir', this.bare, ...args]);
    if ((await execa('git', ['--git-dir', this.bare, 'rev-parse', '--verify', '-q', ref], { reject: false })).exitCode !== 0) return [];
    const commits = (await git('log', '--reverse', '--format=%H %ct', ref)).stdout.trim().split('\n').filter(Boolean);
    const tables = [];
    for (const line of commits) {
      const [commit, seconds] = line.split(' ') as [string, string];
      const files = (await git('ls-tree', '-r', '--name-only', commit)).stdout.trim().split('\n').filter(Boolean);
      const header = TableHeaderSchema.parse(JSON.parse((await git('show', `${commit}:table.json`)).stdout));
      const leases: TableLease[] = [];
      for (const file of files.filter((f) => f.startsWith('leases/'))) leases.push(TableLeaseSchema.parse(JSON.parse((await git('show', `${commit}:${file}`)).stdout)));
      tables.push({ commit, epoch: header.epoch, at: Number(seconds) * 1000, leases });
    }
    return tables;
  }

  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true, maxRetries: 5 });
  }

  async entries(): Promise<string[]> {
    return readdir(this.dir);
  }
}

/** Two leases of different holders in one table whose paths overlap, or null. */
export function overlapIn(leases: readonly TableLease[], now: number): [TableLease, TableLease] | null {
  const live = leases.filter((l) => Date.parse(l.expires) > now);
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const a = live[i]!;
      const b = live[j]!;
      if (a.holder !== b.holder && lanesOverlap(a.path, b.path)) return [a, b];
    }
  }
  return null;
}
