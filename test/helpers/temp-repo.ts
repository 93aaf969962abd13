import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

/** A temporary repository on disk, optionally a git repository with one commit. */
export class TempRepo {
  private constructor(readonly root: string) {}

  static async create(files: Record<string, string>, options: { git?: boolean } = {}): Promise<TempRepo> {
    const repo = new TempRepo(await mkdtemp(path.join(tmpdir(), 'waves-repo-')));
    await repo.write(files);
    if (options.git ?? true) {
      await repo.git('init', '-q', '-b', 'main');
      await repo.git('add', '-A');
      await repo.git('-c', 'user.name=waves', '-c', 'user.email=waves@example.invalid', 'commit', '-q', '-m', 'initial');
    }
    return repo;
  }

  async write(files: Record<string, string>): Promise<void> {
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(this.root, file)), { recursive: true });
      await writeFile(path.join(this.root, file), content);
    }
  }

  async remove(...files: string[]): Promise<void> {
    for (const file of files) await rm(path.join(this.root, file), { force: true });
  }

  git(...args: string[]) {
    return execa('git', args, { cwd: this.root, stdin: 'ignore' });
  }

  /** Removes the repository and the files tests keep beside it (`<root>-agents.json`, `<root>-tagger/`). */
  async dispose(): Promise<void> {
    await rm(this.root, { recursive: true, force: true, maxRetries: 5 });
    const parent = path.dirname(this.root);
    const prefix = `${path.basename(this.root)}-`;
    for (const name of await readdir(parent).catch(() => [] as string[])) {
      if (name.startsWith(prefix)) await rm(path.join(parent, name), { recursive: true, force: true, maxRetries: 5 });
    }
  }
}
