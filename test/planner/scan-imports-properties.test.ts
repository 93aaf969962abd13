import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readImports, scanImports } from '@waves/planner';
import { trickyProgramArb, trickyTsProgramArb, type TrickyProgram } from '../arbitraries.js';

const RUNS = { numRuns: 300 };

/** What TypeScript's parser reads: the module names of the program's import declarations, and its syntax errors. */
function parsedImports({ file, text }: TrickyProgram): { specifiers: string[]; errors: string[] } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const errors = ((source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  const specifiers = source.statements.filter(ts.isImportDeclaration).map((s) => (s.moduleSpecifier as ts.StringLiteral).text);
  return { specifiers, errors };
}

describe('scanImports properties (red team F4)', () => {
  it('always finds the imports TypeScript finds, in order, in programs of regexes, divisions, templates, JSX text and line separators', () => {
    fc.assert(
      fc.property(trickyProgramArb, (program) => {
        const truth = parsedImports(program);
        expect(truth.errors, 'the generated program is valid').toEqual([]);
        expect(scanImports(program.text, program.file).map((i) => i.specifier)).toEqual(truth.specifiers);
      }),
      RUNS,
    );
  });

  it('never needs the parser to read TypeScript without JSX: the lexer alone reads it as TypeScript does', () => {
    fc.assert(
      fc.property(trickyTsProgramArb, (program) => {
        const reading = readImports(program.text, program.file);
        expect(reading.imports.map((i) => i.specifier)).toEqual(parsedImports(program).specifiers);
        expect(reading.by).toBe('lexer');
      }),
      RUNS,
    );
  });
});
