import { describe, expect, it } from 'vitest';
import { readImports } from '@waves/planner';

const specifiers = (text: string, file: string) => {
  const reading = readImports(text, file);
  return { by: reading.by, specifiers: reading.imports.map((i) => i.specifier) };
};

describe('scanImports falls back to TypeScript where its lexer may have been fooled (red team F4)', () => {
  it('reads a .tsx file whose JSX text holds a backtick with the parser, and finds the import after it', () => {
    const text = ["export const Help = () => <p>Type ` to start a code span</p>;", "import { b } from './b';", 'export const a = b;', '// `'].join('\n');
    expect(specifiers(text, 'src/a.tsx')).toEqual({ by: 'parser', specifiers: ['./b'] });
  });

  it('reads JSX text the lexer takes for a block comment with the parser', () => {
    const text = ['const nc = <p>/* not a comment</p>;', "import { b } from './b';"].join('\n');
    expect(specifiers(text, 'src/a.jsx')).toEqual({ by: 'parser', specifiers: ['./b'] });
  });

  it('reads a file with the parser where template text read as code opens a comment at the start of a line', () => {
    // The backtick in JSX text ends at the template's real opening one: the lexer reads the
    // template's text as code, and its `/*` as a comment that runs over the import.
    const text = ['export const H = () => <p>`</p>; const t = `', '/*', '`;', "import { b } from './b';", '// */'].join('\n');
    expect(specifiers(text, 'src/a.tsx')).toEqual({ by: 'parser', specifiers: ['./b'] });
  });

  it('reads import-shaped text in a real template literal (a code generator) as the text it is, once the parser says so', () => {
    const text = ['const code = `', "import { a } from './generated';", "const b = require('./generated-b');", '`;', "import { b } from './b';"].join('\n');
    expect(specifiers(text, 'src/gen.ts')).toEqual({ by: 'parser', specifiers: ['./b'] });
  });

  it('keeps every reading when the parser finds a syntax error: the lexer’s, the parser’s and a fresh scan at each unreached import', () => {
    const text = ["import { a } from './a';", 'const = 1;', 'export const Help = () => <p>Type ` here</p>;', "import { b } from './b';", '// `'].join('\n');
    const reading = specifiers(text, 'src/a.tsx');
    expect(reading.by).toBe('union');
    expect(reading.specifiers).toEqual(expect.arrayContaining(['./a', './b']));
  });

  it('scans afresh at each unreached import of a file too large to parse', () => {
    const text = ["export const Help = () => <p>Type ` here</p>;", "import { b } from './b';", `// ${'x'.repeat(2_000_001)}`, '// `'].join('\n');
    expect(specifiers(text, 'src/a.tsx')).toEqual({ by: 'union', specifiers: ['./b'] });
  });

  it('scans afresh at each unreached import of a file nested deeper than the parser can go', () => {
    const text = [`const deep = ${'('.repeat(20_000)}1${')'.repeat(20_000)};`, "export const Help = () => <p>Type ` here</p>;", "import { b } from './b';", '// `'].join('\n');
    expect(specifiers(text, 'src/a.tsx')).toEqual({ by: 'union', specifiers: ['./b'] });
  });

  it('asks the parser where a misread slash swallowed a backtick, and a comment at the start of a later line hides an import', () => {
    // Each first line is read wrongly by the lexer (a division after a function expression, a
    // regex after a type literal): what it swallows opens a template literal that it never sees,
    // and the template's `/*` line reads as a comment running over the import.
    const tails = ['/*', '`;', "import { b } from './b';", '// */'];
    for (const head of ['const f = function () {} / 2 + `', "type T = { a: 1 }\n/'/.test(s) + `", 'type T = { a: 1 }\n/[//]/.source + `']) {
      expect(specifiers([head, ...tails].join('\n'), 'src/a.ts'), head).toEqual({ by: 'parser', specifiers: ['./b'] });
    }
  });

  it('asks the parser about an import clause too long for the lexer, instead of dropping it (an icon barrel of 2,100 names)', () => {
    const names = Array.from({ length: 2100 }, (_, i) => `Icon${i}`).join(', ');
    expect(specifiers(`import { ${names} } from './icons';\nimport { b } from './b';\n`, 'src/a.ts')).toEqual({ by: 'parser', specifiers: ['./icons', './b'] });
    expect(specifiers(`export { ${names} } from './icons';\n`, 'src/a.ts')).toEqual({ by: 'parser', specifiers: ['./icons'] });
  });

  it('notices an unreached import or require with a comment inside', () => {
    const text = ['export const H = () => <p>`</p>;', "import /* c */ { b } from './b';", "const c = require(/* c */ './c');", '// `'].join('\n');
    expect(specifiers(text, 'src/a.tsx')).toEqual({ by: 'parser', specifiers: ['./b', './c'] });
  });

  it('never asks the parser about imports in comments that start their line before anything could mislead the lexer: doc examples and commented-out code', () => {
    const text = [
      '/** @example with `code`',
      " * const x = require('./x');",
      " * const y = await import('./y');",
      ' */',
      "// import z from './z';",
      '/*',
      "import { w } from './w';",
      '*/',
      "import { b } from './b';",
    ].join('\n');
    expect(specifiers(text, 'src/a.ts')).toEqual({ by: 'lexer', specifiers: ['./b'] });
  });

  it('never asks the parser about a JSDoc type import, wherever its comment stands, but still about an import in a template substitution', () => {
    const text = [
      "import { join } from 'node:path';",
      'const small = a < b;',
      "export default { /** @type {import('next').NextConfig} */ x: 1, /** @param {import('./y').Y} y */ f(y) {} };",
      '/** @type import("./z").Z */',
      'const z = 1;',
    ].join('\n');
    expect(specifiers(text, 'next.config.mjs')).toEqual({ by: 'lexer', specifiers: ['node:path'] });
    const template = ["const a = b /`/; const s = `@type ${import('./s')}`;"].join('\n');
    expect(specifiers(template, 'src/a.ts').specifiers).toContain('./s');
  });

  it('asks the parser about an import in a comment opened mid-line, where a regex read as code may have opened it', () => {
    const text = ["const r = x.y /[/*]/.source; import { b } from './b'; // */"].join('\n');
    const reading = specifiers(text, 'src/a.ts');
    expect(reading.by).not.toBe('lexer');
    expect(reading.specifiers).toContain('./b');
  });
});
