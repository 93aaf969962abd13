import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstJsonError, parseJsonText } from '@waves/planner';
import { jsonishTextArb } from '../arbitraries.js';

describe('parseJsonText', () => {
  it('parses valid JSON, a byte-order mark included', () => {
    expect(parseJsonText('\uFEFF[1, {"a": null}]')).toEqual({ ok: true, value: [1, { a: null }] });
  });

  it('locates an error by line and column, and says nothing of the text', () => {
    const secret = 'root:$6$s3cretSalt$hash:19000:0:99999:7:::';
    const parsed = parseJsonText(`[\r\n  {"a": 1,\n   ${secret}}]`);
    expect(parsed).toMatchObject({ ok: false, line: 3, column: 4, endsEarly: false, message: 'line 3, column 4' });
    expect(JSON.stringify(parsed)).not.toMatch(/root|s3cret|hash/);
  });

  it('says where a text ends early', () => {
    expect(parseJsonText('')).toMatchObject({ ok: false, line: 1, column: 1, message: 'line 1, column 1: the text ends early' });
    expect(parseJsonText('{"a": [1, 2')).toMatchObject({ ok: false, line: 1, column: 12, endsEarly: true });
  });

  it('survives any nesting depth', () => {
    expect(parseJsonText('['.repeat(1_000_000))).toMatchObject({ ok: false, endsEarly: true, column: 1_000_001 });
  });

  it('should always agree with V8 wherever V8 names a position', () => {
    fc.assert(
      fc.property(jsonishTextArb, (text) => {
        let position: number | null = null;
        try {
          JSON.parse(text);
        } catch (error) {
          const match = /at position (\d+)/.exec((error as Error).message);
          position = match ? Number(match[1]) : null;
        }
        fc.pre(position !== null);
        expect(firstJsonError(text)).toBe(position);
      }),
      { numRuns: 2000 },
    );
  });

  it('should never report a wrong character inside a prefix of valid JSON: it only ends early', () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), (json, at) => {
        const prefix = json.slice(0, at % (json.length + 1));
        fc.pre(!parses(prefix));
        expect(firstJsonError(prefix)).toBe(prefix.length);
      }),
    );
  });
});

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
