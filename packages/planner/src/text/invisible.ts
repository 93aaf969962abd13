/**
 * The one definition of a character that must never reach a reader raw: what shows as nothing or
 * breaks a line — controls (C0, DEL, C1), format characters (zero-width and bidirectional marks,
 * the Unicode tag characters a model reads as ASCII, Arabic number signs, interlinear
 * annotations), line and paragraph separators, every default-ignorable code point (variation
 * selectors, musical and hieroglyph format controls, combining grapheme joiner), and the Hangul
 * fillers, which are letters that render blank. Every escaper — tables, markdown, the prompt, the
 * `--dry-run` comment line — uses it, so what a person is shown and what an agent reads agree.
 */
export const INVISIBLE_CLASS = '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}\\u115f\\u1160\\u3164\\uffa0]';

/** `INVISIBLE_CLASS` but the characters in `kept` (`'\n'`, `'\t\n\r'`…), as a global regular expression. */
export function invisibleExcept(kept = ''): RegExp {
  const keep = [...kept].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return new RegExp(keep === '' ? INVISIBLE_CLASS : `(?![${keep}])${INVISIBLE_CLASS}`, 'gu');
}
