/**
 * Lists a source file's imports as TypeScript's parser reads them: the slow, exact reading that
 * `scanImports` falls back to when its lexer may have been fooled (see find-import-candidates.ts).
 *
 * Bounded per file, as the files are untrusted: texts past `MAX_PARSED_CHARS` are not parsed (a
 * parse holds some 25 bytes of syntax tree a character, about 50 MB at the limit, and is linear in
 * time: 1 to 2 s for 2 MB on a loaded two-core machine, pathological nestings included); JSDoc is
 * not parsed; the walk over the tree keeps its own stack; and nesting deeper than the parser's
 * recursion allows (some 800 parentheses) throws a RangeError, read as no parse at all.
 */
import type { ts as TypeScript } from 'ts-morph';
import type { ImportKind } from '../types.js';
import { typescript } from './typescript.js';

export interface ParsedImports {
  /** In source order: triple-slash references first, as `scanImports` lists them. */
  imports: { specifier: string; kind: ImportKind }[];
  /** Whether the parser reported no syntax error: only then is its reading the whole truth. */
  clean: boolean;
}

/** The longest text parsed (UTF-16 code units): the default read limit of a source file, 2 MB. */
export const MAX_PARSED_CHARS = 2_000_000;

/** The imports of `text` read by TypeScript's parser (the script kind from `file`'s extension); null when it could not be parsed. */
export function parseImports(text: string, file: string): ParsedImports | null {
  if (text.length > MAX_PARSED_CHARS) return null;
  const ts = typescript();
  let source: TypeScript.SourceFile;
  try {
    source = ts.createSourceFile(file, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, scriptKindOf(ts, file));
  } catch (error) {
    if (error instanceof RangeError) return null; // nested past the call stack
    throw error;
  }
  const found: { at: number; specifier: string; kind: ImportKind }[] = [];
  const isModule = ts.isExternalModule(source);
  const add = (node: TypeScript.Node | undefined, kind: ImportKind) => {
    if (node && ts.isStringLiteralLike(node)) found.push({ at: node.pos, specifier: node.text, kind });
  };
  const stack: TypeScript.Node[] = [source];
  const push = (child: TypeScript.Node) => {
    stack.push(child);
  };
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword ? 'type' : 'static');
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'reexport');
    else if (ts.isImportEqualsDeclaration(node)) {
      if (ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression, 'require');
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], 'dynamic');
      else if (ts.isIdentifier(callee) && callee.text === 'require' && node.arguments.length === 1) add(node.arguments[0], 'require');
    } else if (ts.isImportTypeNode(node)) {
      if (ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, 'type');
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name) && isModule && !node.name.text.includes('*')) {
      // In a module, `declare module './x'` augments x; in a script it declares an ambient module.
      add(node.name, 'static');
    }
    ts.forEachChild(node, push);
  }
  found.sort((a, b) => a.at - b.at);
  const references = [
    ...source.referencedFiles.map((ref) => (ref.fileName.startsWith('.') ? ref.fileName : `./${ref.fileName}`)),
    ...source.typeReferenceDirectives.map((ref) => ref.fileName).filter((name) => name.startsWith('.')),
  ];
  const diagnostics = (source as unknown as { parseDiagnostics?: readonly unknown[] }).parseDiagnostics;
  return {
    imports: [...references.map((specifier) => ({ specifier, kind: 'type' as const })), ...found.map(({ specifier, kind }) => ({ specifier, kind }))],
    // `parseDiagnostics` is internal: where a TypeScript release drops it, no parse counts as clean.
    clean: Array.isArray(diagnostics) && diagnostics.length === 0,
  };
}

function scriptKindOf(ts: typeof TypeScript, file: string): TypeScript.ScriptKind {
  if (/\.[cm]?tsx?$/.test(file)) return file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  if (/\.[cm]?jsx?$/.test(file)) return file.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
  return ts.ScriptKind.TSX; // unknown: the most permissive reading
}
