/** Which git settings name a program, how git's config list reads, and what counts as a change against the trusted ones. */
import { describe, expect, it } from 'vitest';
import { namesProgram, parseConfigList, pathInRepository, programChanges, programConfig, signingOptions, trustedConfigOf } from '@waves/dispatch';

const list = (...rows: [string, string, string, string | null][]) =>
  rows.map(([scope, origin, key, value]) => `${scope}\0${origin}\0${key}${value === null ? '' : `\n${value}`}\0`).join('');

describe('the git settings that name a program', () => {
  it('are the filters, diff and merge drivers, signing and trailer commands, and nothing a person changes for a terminal or a remote', () => {
    for (const key of ['filter.lfs.clean', 'filter.x.y.smudge', 'filter.evil.process', 'diff.pretty.textconv', 'diff.x.command', 'diff.external', 'merge.ours.driver', 'gpg.program', 'gpg.ssh.program', 'gpg.format', 'gpg.ssh.defaultkeycommand', 'commit.gpgsign', 'tag.gpgsign', 'trailer.sign.command', 'trailer.sign.cmd', 'include.path', 'includeif.onbranch:waves/issue-103.path', 'includeif.gitdir:**/.git/worktrees/**.path', 'core.attributesfile', 'extensions.partialclone', 'remote.evil.promisor', 'remote.evil.uploadpack', 'remote.o.receivepack', 'core.sshcommand', 'core.worktree']) {
      expect(namesProgram(key), key).toBe(true);
    }
    for (const key of ['filter.lfs.required', 'core.editor', 'core.pager', 'credential.helper', 'core.hookspath', 'core.fsmonitor', 'alias.co', 'user.signingkey', 'remote.origin.url', 'includeif.onbranch:x.other']) {
      expect(namesProgram(key), key).toBe(false);
    }
  });

  it('reads the list as git writes it with -z: a value may hold line breaks, a key may have none', () => {
    const text = list(['local', 'file:.git/config', 'filter.x.clean', 'sh -c "a\nb"'], ['local', 'file:.git/config', 'commit.gpgsign', null]);
    expect(parseConfigList(text)).toEqual([
      { scope: 'local', origin: 'file:.git/config', key: 'filter.x.clean', value: 'sh -c "a\nb"' },
      { scope: 'local', origin: 'file:.git/config', key: 'commit.gpgsign', value: null },
    ]);
  });

  it('keeps the value in effect (the last one git reads) and never what the command line set', () => {
    const config = programConfig(parseConfigList(list(
      ['global', 'file:/home/p/.gitconfig', 'filter.lfs.clean', 'git-lfs clean -- %f'],
      ['local', 'file:.git/config', 'filter.lfs.clean', 'evil'],
      ['command', 'command line:', 'commit.gpgsign', 'false'],
    )));
    expect([...config]).toEqual([['filter.lfs.clean', { value: 'evil', origin: 'file:.git/config', scope: 'local' }]]);
  });
});

describe('includes', () => {
  it('count with every value: an include added before a trusted one is a change, one removed is none', () => {
    const rows = (...paths: string[]) => programConfig(paths.map((p) => ({ scope: 'local', origin: 'file:.git/config', key: 'include.path', value: p })));
    const trusted = trustedConfigOf([rows('/home/p/a.inc')]);
    expect(trusted).toEqual({ 'include.path': ['/home/p/a.inc'] });
    expect(programChanges(trusted, rows('/tmp/evil.inc', '/home/p/a.inc')).map((c) => [c.key, c.value])).toEqual([['include.path', '/tmp/evil.inc']]);
    expect(programChanges(trusted, rows())).toEqual([]);
  });
});

describe('a change against the trusted settings', () => {
  const trusted = trustedConfigOf([programConfig(parseConfigList(list(['local', 'file:.git/config', 'filter.lfs.clean', 'git-lfs clean -- %f'], ['local', 'file:.git/config', 'commit.gpgsign', 'false'])))]);
  const now = (...rows: [string, string | null][]) => programConfig(rows.map(([key, value]) => ({ scope: 'local', origin: 'file:.git/config', key, value })));

  it('is a key added or a value changed; a key removed is none', () => {
    expect(programChanges(trusted, now(['filter.lfs.clean', 'git-lfs clean -- %f'], ['commit.gpgsign', 'false']))).toEqual([]);
    expect(programChanges(trusted, now())).toEqual([]);
    expect(programChanges(trusted, now(['filter.evil.clean', 'x'])).map((c) => c.key)).toEqual(['filter.evil.clean']);
    expect(programChanges(trusted, now(['commit.gpgsign', 'true']))).toEqual([{ key: 'commit.gpgsign', value: 'true', origin: 'file:.git/config', trusted: ['false'] }]);
  });

  it('never takes a key named like an object property for a trusted one', () => {
    expect(programChanges(trusted, now(['filter.constructor.clean', 'x'])).length).toBe(1);
  });
});

describe('the signing of a commit of waves', () => {
  it('is off unless the trusted config signs; then with its program pinned, and git defaults for the others', () => {
    const config = (rows: [string, string | null][]) => programConfig(rows.map(([key, value]) => ({ scope: 'local', origin: 'file:.git/config', key, value })));
    expect(signingOptions(config([['gpg.program', '/usr/bin/gpg2']]))).toEqual([]);
    expect(signingOptions(config([['commit.gpgsign', 'true'], ['gpg.program', '/usr/bin/gpg2']]))).toEqual([
      '-c', 'commit.gpgSign=true', '-c', 'gpg.format=openpgp', '-c', 'gpg.program=/usr/bin/gpg2', '-c', 'gpg.x509.program=gpgsm', '-c', 'gpg.ssh.program=ssh-keygen',
    ]);
    expect(signingOptions(config([['commit.gpgsign', null]]))).toContain('commit.gpgSign=true');
  });
});

describe('a trusted setting that names a path an agent can rewrite', () => {
  it('is a relative program or one inside the repository, and an include resolved into it; not a program on the PATH or outside', () => {
    const root = '/repo';
    expect(pathInRepository('filter.fmt.clean', 'sh tools/clean.sh', root, null)).toBe('tools/clean.sh');
    expect(pathInRepository('filter.fmt.clean', './fmt %f', root, null)).toBe('./fmt');
    expect(pathInRepository('diff.x.textconv', '/repo/bin/conv', root, null)).toBe('/repo/bin/conv');
    expect(pathInRepository('include.path', '../shared.gitconfig', root, '/repo/.git/config')).toBe('/repo/shared.gitconfig');
    for (const [key, value] of [['filter.lfs.clean', 'git-lfs clean -- %f'], ['gpg.program', '/usr/bin/gpg'], ['include.path', '/home/p/x.inc'], ['commit.gpgsign', 'true'], ['filter.x.smudge', 'sh -c "cat"']] as const) {
      expect(pathInRepository(key, value, root, '/repo/.git/config'), `${key}=${value}`).toBeNull();
    }
  });
});
