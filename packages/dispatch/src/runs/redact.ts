/**
 * Redaction of known secrets from a byte stream, chunk by chunk: a secret split across two chunks
 * is still found, because the tail of a chunk that could begin a secret is held back until the
 * next one (or the end) decides. Logs can be huge, so nothing is ever read whole.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

export const REDACTED = '[REDACTED]';

export class Redactor {
  private readonly secrets: Buffer[];
  private carry = Buffer.alloc(0);
  private readonly replacement = Buffer.from(REDACTED);

  constructor(secrets: readonly string[]) {
    // Longest first: of two secrets at one place, the longer is replaced whole.
    this.secrets = [...new Set(secrets)].filter((s) => s.length > 0).map((s) => Buffer.from(s)).sort((a, b) => b.length - a.length);
  }

  /** The bytes that are safe to emit now; a tail that may begin a secret waits for the next chunk. */
  push(chunk: Buffer): Buffer {
    if (this.secrets.length === 0) return chunk;
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const { out, rest } = this.replace(data);
    // Hold back the longest suffix that is a proper prefix of some secret.
    let hold = 0;
    for (const secret of this.secrets) {
      for (let n = Math.min(secret.length - 1, rest.length); n > hold; n--) {
        if (rest.subarray(rest.length - n).equals(secret.subarray(0, n))) {
          hold = n;
          break;
        }
      }
    }
    this.carry = Buffer.from(rest.subarray(rest.length - hold));
    return Buffer.concat([out, rest.subarray(0, rest.length - hold)]);
  }

  /** What was held back, at the end of the stream. */
  flush(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return rest;
  }

  /** Replaces every whole secret in `data`; `rest` is what follows the last replacement. */
  private replace(data: Buffer): { out: Buffer; rest: Buffer } {
    const parts: Buffer[] = [];
    let from = 0;
    for (;;) {
      let at = -1;
      let found: Buffer | null = null;
      for (const secret of this.secrets) {
        const i = data.indexOf(secret, from);
        if (i >= 0 && (at < 0 || i < at)) {
          at = i;
          found = secret;
        }
      }
      if (found === null) break;
      parts.push(data.subarray(from, at), this.replacement);
      from = at + found.length;
    }
    return { out: Buffer.concat(parts), rest: data.subarray(from) };
  }
}

/** A transform stream that redacts what passes through it. */
export function redactingStream(secrets: readonly string[]): Transform {
  const redactor = new Redactor(secrets);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, redactor.push(chunk));
    },
    flush(done) {
      done(null, redactor.flush());
    },
  });
}

/** Rewrites a file with the secrets redacted, streaming, through a temporary file renamed over it. */
export async function redactFile(file: string, secrets: readonly string[]): Promise<void> {
  if (secrets.length === 0) return;
  const temp = `${file}.${process.pid}.redact.tmp`;
  try {
    await pipeline(createReadStream(file), redactingStream(secrets), createWriteStream(temp));
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
