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
};

describe('agent commands', () => {
  it('renders each preset in its non-interactive form, with the title, the model and the prompt last', () => {
    expect(renderCommand(AGENT_PRESETS.opencode!, VALUES)).toEqual([
      'opencode', 'run', '--title', 'Issue #12: -rf / --dangerous', '--model', 'cheap/model', 'You are an isolated worker…',
    ]);
    expect(renderCommand(AGENT_PRESETS.claude!, VALUES)).toEqual(['claude', '--print', '--model', 'cheap/model', 'You are an isolated worker…']);
    expect(renderCommand(AGENT_PRESETS.codex!, VALUES)).toEqual(['codex', 'exec', '--model', 'cheap/model', 'You are an isolated worker…']);
  });

  it('drops the model flag when no model is set', () => {
    expect(renderCommand(AGENT_PRESETS.codex!, { ...VALUES, model: '' })).toEqual(['codex', 'exec', 'You are an isolated worker…']);
  });

  it('replaces placeholders inside one element each, never splitting or joining', () => {
    const template = agentTemplate('mytool', { mytool: { command: ['mytool', '--title', '{title}', '--where={worktree}:{branch}', '--paths', '{paths}', '{prompt}'] } });
    expect(renderCommand(template, VALUES)).toEqual([
      'mytool', '--title', '-rf / --dangerous', '--where=.waves/worktrees/issue-12:waves/issue-12', '--paths', 'packages/cli/src/a.ts packages/cli/src/b.ts', 'You are an isolated worker…',
    ]);
  });

  it('never lets issue text stand where it could become a flag', () => {
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '{title}'] })).toThrow(/could become a flag/);
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '--x', '{title}'] })).not.toThrow();
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '--', '{title}'] })).not.toThrow();
    expect(() => validateTemplate({ name: 'bad', command: ['{title}'] })).toThrow(/executable/);
    expect(() => validateTemplate({ name: 'bad', command: ['tool', '{nope}'] })).toThrow(/unknown placeholder \{nope\}/);
    for (const preset of Object.values(AGENT_PRESETS)) expect(() => validateTemplate(preset)).not.toThrow();
  });

  it('names the known agents when asked for another', () => {
    expect(() => agentTemplate('nope', { mine: { command: ['x'] } })).toThrow('unknown agent "nope" (known: claude, codex, mine, opencode)');
  });
});
