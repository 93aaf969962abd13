import { describe, expect, it } from 'vitest';
import { AGENT_PRESETS, agentTemplate, renderCommand, validateTemplate, type CommandValues } from '@waves/dispatch';

const VALUES: CommandValues = {
  number: '12',
  title: '-rf / --dangerous',
  prompt: 'You are an isolated worker…',
  model: 'cheap/model',
  lane: 'cli',
  paths: 'packages/cli/src/a.ts packages/cli/src/b.ts',
  worktree: '.waves/worktrees/issue-12',
  branch: 'waves/issue-12',
  cwd: '/repo/.waves/worktrees/issue-12',
};

describe('agent commands', () => {
  it('renders each preset in its non-interactive form, with the title, the model and the prompt last', () => {
    expect(renderCommand(AGENT_PRESETS.opencode!, VALUES)).toEqual([
      'opencode', 'run', '--title', 'Issue #12: -rf / --dangerous', '--model=cheap/model', 'You are an isolated worker…',
    ]);
    expect(renderCommand(AGENT_PRESETS.claude!, VALUES)).toEqual(['claude', '--print', '--permission-mode', 'acceptEdits', '--model=cheap/model', 'You are an isolated worker…']);
    expect(renderCommand(AGENT_PRESETS.codex!, VALUES)).toEqual([
      'codex', 'exec', '--sandbox', 'workspace-write', '--cd', '/repo/.waves/worktrees/issue-12', '--model=cheap/model', 'You are an isolated worker…',
    ]);
  });

  it('glues the model to its flag, so that no model is ever read as a flag (F10)', () => {
    expect(renderCommand(AGENT_PRESETS.opencode!, { ...VALUES, model: '--share' })).toContain('--model=--share');
    expect(renderCommand(AGENT_PRESETS.opencode!, { ...VALUES, model: '--share' })).not.toContain('--share');
  });

  it('drops the model flag when no model is set', () => {
    expect(renderCommand(AGENT_PRESETS.codex!, { ...VALUES, model: '' })).toEqual(['codex', 'exec', '--sandbox', 'workspace-write', '--cd', '/repo/.waves/worktrees/issue-12', 'You are an isolated worker…']);
    // Claude Code's rule list is variadic: the prompt follows a flag's value, never the rules.
    expect(renderCommand(agentTemplate('claude', {}, { verify: [['pnpm', 'test']] }), { ...VALUES, model: '' })).toEqual([
      'claude', '--print', '--allowedTools', 'Bash(pnpm test)', '--permission-mode', 'acceptEdits', 'You are an isolated worker…',
    ]);
  });

  it('replaces placeholders inside one element each, never splitting or joining', () => {
    const template = agentTemplate('mytool', { mytool: { command: ['mytool', '--title', '{title}', '--where={worktree}:{branch}', '--paths', '{paths}', '{prompt}'] } });
    expect(renderCommand(template, VALUES)).toEqual([
      'mytool', '--title', '-rf / --dangerous', '--where=.waves/worktrees/issue-12:waves/issue-12', '--paths', 'packages/cli/src/a.ts packages/cli/src/b.ts', 'You are an isolated worker…',
    ]);
  });

  it('never lets issue text stand where it could become a flag', () => {
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '{title}'] })).toThrow(/could become a flag/);
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '--title', '{title}'] })).not.toThrow();
    expect(() => validateTemplate({ name: 'bad', command: ['{title}'] })).toThrow(/executable/);
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '{nope}'] })).toThrow(/unknown placeholder \{nope\}/);
    for (const preset of Object.values(AGENT_PRESETS)) expect(() => validateTemplate(preset)).not.toThrow();
  });

  it('refuses issue text as code of an interpreter, anywhere in the element, behind wrappers too', () => {
    const refused = [
      ['sh', '-c', '{title}'],
      ['sh', '-c', 'echo {title}'],
      ['bash', '-lc', '{prompt}'],
      ['bash', '-c', '--', '{title}'],
      ['/bin/dash', '-ec', 'tool {lane}'],
      ['fish', '--command', '{title}'],
      ['env', 'FOO=1', 'bash', '-c', '{prompt}'],
      ['timeout', '10', 'nice', '-n', '5', 'zsh', '-c', 'x {branch}'],
      ['sudo', '-u', 'me', 'ksh', '-c', '{title}'],
      ['env', '-S', 'tool {title}'],
      ['node', '-e', '{title}'],
      ['node', '--eval={title}'],
      ['node', '-p', '{prompt}'],
      ['deno', 'eval', '{title}'],
      ['bun', '--print', '{title}'],
      ['python3', '-c', '{title}'],
      ['/usr/bin/python3.12', '-c{title}'],
      ['python', '-m', '{title}'],
      ['perl', '-E', '{title}'],
      ['perl', '-lne', 'print', '{paths}'],
      ['ruby', '-e', '{title}'],
      ['php', '-r', '{title}'],
      ['osascript', '-e', '{title}'],
      ['pwsh', '-Command', '{title}'],
      ['powershell', '-EncodedCommand', '{title}'],
      ['cmd.exe', '/c', 'tool {title}'],
      ['awk', '{prompt}'],
      ['sed', '-n', '{prompt}'],
    ];
    for (const command of refused) expect(() => validateTemplate({ name: 'bad', command }), command.join(' ')).toThrow(/issue text .*where .*(code|arguments)/);
    // valueFlags never unmarks an interpreter's code flag.
    expect(() => validateTemplate({ name: 'bad', command: ['sh', '-c', '{title}'], valueFlags: ['-c'] })).toThrow(/valueFlags names "-c", a flag that runs code in many tools/);
  });

  it("refuses every red-team form: a code flag glued with =, a program that runs its arguments as code, issue text embedded in a positional or after --", () => {
    const refused: [string[], RegExp][] = [
      [['make', '-f', '/dev/null', '--eval={title}'], /code for make --eval/],
      [['npx', '--call={title}'], /code for npx --call/],
      [['npm', 'exec', '--call={title}'], /code for npm --call/],
      [['emacs', '--batch', '--eval={title}'], /emacs may read any of its arguments as code/],
      [['nix-shell', '--run={title}'], /code for nix-shell --run/],
      [['git', '-c', 'alias.x=!{title}', 'x'], /code for git -c/],
      [['vim', '+{title}'], /vim may read any of its arguments as code/],
      [['tmux', 'new', '-d', '--', '{title}'], /tmux may read any of its arguments as code/],
      [['setsid', '--', '{title}'], /neither the value of a flag known to take one nor the whole \{prompt\}/],
      [['env', 'BASH_ENV={title}', 'bash', 'f'], /neither the value of a flag known to take one nor the whole \{prompt\}/],
      // The same forms with a tool waves does not know: only a known value flag takes issue text.
      [['tool', '--eval={title}'], /after "--eval=", a flag not known to take a value/],
      [['tool', '--run={prompt}'], /after "--run=", a flag not known to take a value/],
      [['tool', '+{title}'], /neither the value/],
      [['tool', '--', '{title}'], /neither the value/],
      [['tool', 'Issue: {title}'], /neither the value/],
      [['tool', '-x{title}'], /glues issue text to a flag/],
      [['tool', '-D{title}'], /glues issue text to a flag/],
      [['tool', '--eval', '{prompt}'], /"\{prompt\}" follows "--eval", a flag that runs code in many tools/],
      [['ssh', 'host', '--', '{prompt}'], /ssh may read any of its arguments as code/],
      [['su', 'me', '{prompt}'], /su may read any of its arguments as code/],
      [['screen', '-dm', '{prompt}'], /screen may read/],
      [['watch', '{prompt}'], /watch may read/],
      [['script', '-q', '{prompt}'], /script may read/],
      [['m4', '{prompt}'], /m4 may read/],
      [['nvim', '--headless', '{prompt}'], /nvim may read/],
      [['sudo', '-s', 'tool', '--title', '{title}'], /code for sudo -s/],
      [['sh', '-c', 'tool "$1"', 'sh', '{title}'], /neither the value/],
    ];
    for (const [command, message] of refused) expect(() => validateTemplate({ name: 'bad', command }), command.join(' ')).toThrow(message);
  });

  it('refuses issue text after every program that hands its arguments to a shell or evaluates them, behind nice/nohup/timeout/stdbuf chains too', () => {
    // sg runs `/bin/sh -c <its arguments>`: `["sg", "users", "{prompt}"]` ran `$(touch …)` from an issue path (red team 2, #2).
    const refused: [string[], RegExp][] = [
      [['sg', 'users', '{prompt}'], /sg may read any of its arguments as code/],
      [['timeout', '5', 'sg', 'users', '{prompt}'], /sg may read/],
      [['nice', '-n', '5', 'nohup', 'stdbuf', '-oL', 'timeout', '5', '/usr/bin/sg', 'users', '{prompt}'], /sg may read/],
      [['newgrp', '{prompt}'], /newgrp may read/],
      [['su', '-c', '{prompt}'], /su may read/],
      [['runuser', '-u', 'me', '--', 'tool', '{prompt}'], /runuser may read/],
      [['sudoedit', '{prompt}'], /sudoedit may read/],
      [['sudo', '-i', '{prompt}'], /code for sudo -i/],
      [['sudo', '--login', 'tool', '{prompt}'], /code for sudo --login/],
      [['sudo', '-e', '{prompt}'], /code for sudo -e/],
      [['doas', '-s', '{prompt}'], /code for doas -s/],
      [['ssh', 'host', 'tool', '{prompt}'], /ssh may read/],
      [['mosh', 'host', '--', 'tool', '{prompt}'], /mosh may read/],
      [['autossh', 'host', '{prompt}'], /autossh may read/],
      [['tmux', 'new-session', '-d', 'tool', '{prompt}'], /tmux may read/],
      [['screen', '-dmS', 'x', 'tool', '{prompt}'], /screen may read/],
      [['watch', '-n', '1', 'tool', '{prompt}'], /watch may read/],
      [['script', '-qc', 'tool', '{prompt}'], /script may read/],
      [['flock', '/tmp/lock', '-c', '{prompt}'], /code for flock -c/],
      [['flock', '/tmp/lock', '--command={prompt}'], /code for flock --command/],
      [['at', 'now', '{prompt}'], /at may read/],
      [['batch', '{prompt}'], /batch may read/],
      [['parallel', 'tool', ':::', '{prompt}'], /parallel may read/],
      [['xargs', '-0', 'sh', '-c', '{prompt}'], /code for sh -c/],
      [['xargs', 'bash', '-c', 'tool {title}'], /code for bash -c/],
      [['expect', '-c', '{prompt}'], /expect may read/],
      [['unbuffer', 'tool', '{prompt}'], /unbuffer may read/],
      [['busybox', 'sh', '{prompt}'], /busybox may read/],
      [['toybox', 'sh', '{prompt}'], /toybox may read/],
      [['env', '-S', '{prompt}'], /code for env -S/],
      [['env', '--split-string={prompt}'], /code for env --split-string/],
      [['firejail', 'tool', '{prompt}'], /firejail may read/],
      [['machinectl', 'shell', 'me@', '/bin/tool', '{prompt}'], /machinectl may read/],
      [['xterm', '-e', 'tool', '{prompt}'], /xterm may read/],
      [['x-terminal-emulator', '-e', 'tool', '{prompt}'], /x-terminal-emulator may read/],
      [['entr', '-s', '{prompt}'], /code for entr -s/],
      [['tsx', '--eval', '{prompt}'], /code for tsx --eval/],
      [['ts-node', '-e', '{prompt}'], /code for ts-node -e/],
      [['git', 'submodule', 'foreach', '{prompt}'], /code for git submodule foreach/],
      [['git', 'submodule', '--quiet', 'foreach', '--recursive', 'tool', '{prompt}'], /code for git submodule foreach/],
      [['git', 'bisect', 'run', 'tool', '{prompt}'], /code for git bisect run/],
      [['git', 'rebase', '-x', '{prompt}'], /code for git -x/],
      [['git', 'rebase', '--exec', '{prompt}'], /code for git --exec/],
      [['git', 'rebase', '--exec={prompt}'], /code for git --exec/],
      [['git', 'difftool', '--extcmd', '{prompt}'], /code for git --extcmd/],
      [['git', 'fetch', '--upload-pack', '{prompt}'], /code for git --upload-pack/],
      [['git', 'push', '--receive-pack={prompt}'], /code for git --receive-pack/],
      [['git', 'filter-branch', '--tree-filter', '{prompt}'], /code for git --tree-filter/],
      [['git', '--exec-path', '{prompt}', 'status'], /code for git --exec-path/],
    ];
    for (const [command, message] of refused) expect(() => validateTemplate({ name: 'bad', command }), command.join(' ')).toThrow(message);
    // What execs its command directly (no shell) leaves the prompt data for the program it runs.
    const allowed = [
      ['sudo', 'tool', '--title', '{title}', '{prompt}'],
      ['doas', 'tool', '{prompt}'],
      ['pkexec', 'tool', '{prompt}'],
      ['nice', '-n', '5', 'nohup', 'stdbuf', '-oL', 'timeout', '5', 'tool', '{prompt}'],
      ['find', '.', '-maxdepth', '0', '-exec', 'tool', '{prompt}', ';'],
      ['git', 'status', '--title', '{title}'],
    ];
    for (const command of allowed) expect(() => validateTemplate({ name: 'ok', command }), command.join(' ')).not.toThrow();
  });

  it('never lets valueFlags declare a code flag', () => {
    for (const flag of ['-c', '-e', '-E', '-r', '-x', '--eval', '--exec', '--execute', '--command', '--call', '--run', '--cmd', '-S']) {
      expect(() => validateTemplate({ name: 'bad', command: ['tool', flag, '{title}'], valueFlags: [flag] }), flag).toThrow(`agent bad: valueFlags names "${flag}", a flag that runs code in many tools: issue text may never be its value`);
    }
    expect(() => validateTemplate({ name: 'bad', command: ['python3', 'agent.py', '-m', '{title}'], valueFlags: ['-m'] })).toThrow(/valueFlags names "-m", a code flag of python/);
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '+c', '{title}'], valueFlags: ['+c'] })).toThrow(/a \+ flag runs a command/);
  });

  it('refuses issue text after a flag not known to take a value, or glued to a short flag, unless the agent marks the flag', () => {
    expect(() => validateTemplate({ name: 'bad', command: ['/bin/echo', '-e', '{title}'] })).toThrow(/follows "-e", a flag not known to take a value/);
    expect(() => validateTemplate({ name: 'bad', command: ['claude', '-p', '{title}'] })).toThrow(/follows "-p"/);
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '--output', '{title}'] })).toThrow(/follows "--output"/);
    expect(() => validateTemplate({ name: 'ok', command: ['/bin/echo', '-n', '{title}'], valueFlags: ['-n'] })).not.toThrow();
    expect(() => validateTemplate({ name: 'ok', command: ['tool', '--where={branch}'], valueFlags: ['--where'] })).not.toThrow();
  });

  it('allows issue text as the value of a known value flag (next element or --flag=), the whole {prompt}, and a shell\'s $1 prompt', () => {
    const allowed = [
      ['tool', '--title', '{title}', '--model', '{model}', '{prompt}'],
      ['tool', '--message', '{title}', '-m', '{lane}', '--prompt', '{prompt}', '--name', '{branch}', '--description', '{title}', '--body', '{prompt}', '--subject', '{title}'],
      ['tool', '--where={worktree}', '--title={title}', '--prompt={prompt}', '--title', 'Issue #{number}: {title}'],
      ['tool', '--', '{prompt}'],
      ['claude', '-p', '{prompt}'],
      ['sh', '-c', 'tool --prompt "$1"', 'sh', '{prompt}'],
      ['env', 'FOO=1', 'tool', '--title', '{title}', '{prompt}'],
      ['node', 'agent.js', '--title', '{title}', '{prompt}'],
      ['setsid', 'tool', '--title', '{title}', '{prompt}'],
    ];
    for (const command of allowed) expect(() => validateTemplate({ name: 'ok', command }), command.join(' ')).not.toThrow();
  });

  it('takes an agent name as a name, never as a property every object has', () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(() => agentTemplate(name, { mine: { command: ['x'] } }), name).toThrow(`unknown agent ${JSON.stringify(name)} (known: claude, codex, mine, opencode)`);
    }
  });

  it('names the known agents when asked for another', () => {
    expect(() => agentTemplate('nope', { mine: { command: ['x'] } })).toThrow('unknown agent "nope" (known: claude, codex, mine, opencode)');
  });
});
