import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Replaces (or appends) the block between `<!-- key -->` and `<!-- /key -->` in a results file. */
export function writeResultBlock(file: string, key: string, content: string): void {
  const open = `<!-- ${key} -->`;
  const close = `<!-- /${key} -->`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const block = `${open}\n${content}\n${close}`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  writeFileSync(file, start >= 0 && end > start ? text.slice(0, start) + block + text.slice(end + close.length) : `${text.trimEnd()}\n\n${block}\n`);
}
