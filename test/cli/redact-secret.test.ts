/**
 * The token never reaches the terminal, whole or spelled out (red teams L1, M1), and redaction
 * stays linear in the output (red team M2). `redactSecret` is what every line waves prints goes
 * through when a token is set.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecret } from '../../packages/cli/dist/main.js';

const TOKEN = 'ghp_SECRETtoken0123456789abcdefABCDEF0123';
const PAT = 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef';

/** What a reader can piece together: the letters and digits of `text`, escapes and everything else taken out. */
function letters(text: string): string {
  return text.replace(/\\u\{[0-9a-fA-F]{1,6}\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[tnrbf]|[^A-Za-z0-9]/g, '');
}

/** The 8-character runs of the token's letters and digits that `text` spells. */
function leaked(text: string, token: string): string[] {
  const key = token.replace(/[^A-Za-z0-9]/g, '');
  const spelled = letters(text);
  const runs: string[] = [];
  for (let k = 0; k + 8 <= key.length; k++) if (spelled.includes(key.slice(k, k + 8))) runs.push(key.slice(k, k + 8));
  return runs;
}

describe('redactSecret', () => {
  it('leaves no 8 characters of the token in a row, whatever separates them and however the output escapes the separators', () => {
    const separator = fc.constantFrom('\t', '\n', '\r', '\b', '\f', ' ', '\u200b', '\u0007', '-', '', '_');
    const spelling = fc.record({ token: fc.constantFrom(TOKEN, PAT), separators: fc.array(separator, { minLength: 1, maxLength: 4 }), json: fc.boolean(), prefix: fc.string({ maxLength: 20 }) });
    fc.assert(
      fc.property(spelling, ({ token, separators, json, prefix }) => {
        const spelled = [...token].map((c, i) => c + separators[i % separators.length]!).join('');
        const line = `${prefix}title: ${spelled}`;
        // As printed: raw, or inside --json output (JSON.stringify writes \t \n \r \b \f as letter escapes).
        const printed = json ? JSON.stringify({ title: line }) : line;
        expect(leaked(redactSecret(printed, token), token)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('takes out the token written with its letters set apart as escapes (`S\\u{E}\\u{C}R…`) or with underscores between them', () => {
    const braced = [...TOKEN].map((c) => (/[A-F0-9]/.test(c) ? `\\u{${c}}` : c)).join('');
    expect(leaked(redactSecret(braced, TOKEN), TOKEN)).toEqual([]);
    const underscored = [...TOKEN].join('_');
    expect(leaked(redactSecret(underscored, TOKEN), TOKEN)).toEqual([]);
  });

  it('keeps the text around the token and takes out every copy of the public head of a fine-grained token', () => {
    // 40,000 copies of `github_p`, the head every fine-grained token shares (this was quadratic: red team M2).
    const text = 'see github_p here; '.repeat(40_000);
    const out = redactSecret(text, PAT);
    expect(out).toBe('see [REDACTED] here; '.repeat(40_000));
    expect(redactSecret(`a ${PAT} b ${PAT.slice(0, 30)} c`, PAT)).toBe('a [REDACTED] b [REDACTED] c');
  });

  it('leaves text that holds no part of the token as it was', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        fc.pre(leaked(text, TOKEN).length === 0 && !text.includes(TOKEN.slice(0, 8)));
        expect(redactSecret(text, TOKEN)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
