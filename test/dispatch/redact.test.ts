/** Redaction of known secrets from logs: whole secrets only, wherever the chunks of a stream cut them. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactFile, Redactor } from '@waves/dispatch';

/** Pushes `text` through a redactor in chunks cut at `cuts`, and returns what came out. */
function through(secrets: string[], text: string, cuts: number[]): string {
  const redactor = new Redactor(secrets);
  const bytes = Buffer.from(text);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const at of [...points, bytes.length]) {
    out.push(redactor.push(bytes.subarray(from, at)));
    from = at;
  }
  out.push(redactor.flush());
  return Buffer.concat(out).toString();
}

describe('Redactor', () => {
  it('replaces a secret split across chunks, and leaves a mere prefix of it alone', () => {
    expect(through(['ghp_abcdef'], 'token=ghp_abcdef done', [8, 12])).toBe(`token=${REDACTED} done`);
    expect(through(['ghp_abcdef'], 'almost ghp_abc', [10])).toBe('almost ghp_abc');
    expect(through(['ghp_abcdef', 'ghp_abcdef0123'], 'a ghp_abcdef0123 b ghp_abcdef', [5])).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it('should always give, wherever the chunks are cut, what one pass over the whole text gives', () => {
    const secret = 'ghp_s3cret';
    fc.assert(
      fc.property(fc.array(fc.constantFrom('x', 'ghp_', 's3cret', secret, 'gh', ' '), { maxLength: 20 }), fc.array(fc.nat(200), { maxLength: 6 }), (parts, cuts) => {
        const text = parts.join('');
        expect(through([secret], text, cuts)).toBe(text.split(secret).join(REDACTED));
      }),
    );
  });
});

describe('redactFile', () => {
  it('rewrites a file with its secrets redacted, and leaves a file without secrets to redact untouched', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'waves-redact-'));
    try {
      const file = path.join(dir, 'run.log');
      await writeFile(file, `${'x'.repeat(100_000)}GH_TOKEN=ghp_s3cret\n`);
      await redactFile(file, ['ghp_s3cret']);
      expect((await readFile(file, 'utf8')).endsWith(`GH_TOKEN=${REDACTED}\n`)).toBe(true);
      await redactFile(file, []);
      expect(await readFile(file, 'utf8')).toContain(REDACTED);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
