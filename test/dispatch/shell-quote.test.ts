import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENT_PRESETS, renderCommand, shellQuote } from '@waves/dispatch';

const dir = mkdtempSync(path.join(tmpdir(), 'waves-quote-'));
const canary = path.join(dir, 'canary');

/** Any Unicode scalar value but NUL (which no argv can hold), control characters often. */
const anyCharacter = fc.oneof(
  fc.integer({ min: 1, max: 0x9f }),
  fc.integer({ min: 0x2000, max: 0x206f }),
  fc.integer({ min: 1, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff),
).map((c) => String.fromCodePoint(c));

/**
 * Raw invisible characters: everything the quoting must keep out of the line but \n — controls, and
 * the zero-width and tag characters the output's last escaping would turn into `\uXXXX` text, which
 * would then paste as those six characters (red team L7).
 */
const RAW_CONTROL = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u115f\u1160\u3164\uffa0]/u;

/** Pieces issue text is made of when someone tries to break out of quoting. */
const hostile = fc.oneof(
  fc.constantFrom(`$(touch ${canary})`, `\`touch ${canary}\``, `; touch ${canary}`, `&& touch ${canary}`, `| touch ${canary}`, `'`, `"`, '\\', '$HOME', '${IFS}', '\n', '\r', '\t', '\u202e', '\u200f', '-rf', '--help', '*', '?', '[a]', '{a,b}', '~', '#', '!', '%', '\u0001', '\u001b[2J', 'é', '🚀', ' '),
  fc.constantFrom('\u200b', '\u200d', '\u2060', '\u{e0041}\u{e0042}', '\u034f', '\u3164', '\u0085', '\u009b31m', '\u001b]8;;http://x\u0007link\u001b]8;;\u0007', '\u001b]0;title\u0007', '\u2028', '\u2029', '\ufeff', '\u200e', '\u2066', '\u2069', '\u007f', '\r\n'),
  fc.string(),
  fc.string({ unit: anyCharacter }),
);
const text = fc.array(hostile, { maxLength: 12 }).map((parts) => parts.join('')).filter((s) => !s.includes('\u0000'));

/** What a real POSIX shell makes of a previewed command line. */
function argvOf(line: string): string[] {
  const out = execFileSync('sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('shell-quoted previews', () => {
  it('always give back exactly the argv through a real sh, and never run anything', () => {
    fc.assert(
      fc.property(text, text, (title, body) => {
        const argv = renderCommand(AGENT_PRESETS.opencode!, {
          number: '7', title, prompt: `You are a worker for: ${title}\n${body}`, model: 'm', lane: body, paths: body, worktree: '', branch: 'waves/issue-7', cwd: '/repo',
        });
        expect(argvOf(shellQuote(argv))).toEqual(argv);
        expect(argv[0]).toBe('opencode');
      }),
      { numRuns: 300 },
    );
    expect(existsSync(canary)).toBe(false);
  });

  it('should always give back any argv through a real sh, with no raw control character but a line break inside quotes', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), (args) => {
        const argv = ['agent', ...args];
        const line = shellQuote(argv);
        expect(line).not.toMatch(RAW_CONTROL);
        expect(argvOf(line)).toEqual(argv);
      }),
      { numRuns: 300 },
    );
    expect(existsSync(canary)).toBe(false);
  });

  it('puts a command on one line starting with the executable when no argument holds a line break', () => {
    const line = shellQuote(['opencode', 'run', '--title', "Issue #1: it's $(bad)", 'prompt']);
    expect(line.split('\n')).toHaveLength(1);
    expect(line.startsWith('opencode ')).toBe(true);
  });
});
