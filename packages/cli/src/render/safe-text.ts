/**
 * Issue text is untrusted: before it reaches a terminal — or a file or pipe that someone later
 * shows on one — control characters (ANSI and OSC escapes, carriage returns, C1 controls, line
 * breaks) and bidirectional marks are shown as visible escapes, so a title cannot rewrite the
 * screen, open a hyperlink, reorder what a reader sees or start a new line where it should not.
 */
const UNSAFE_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069\\ufeff';

/** Every character `safeText` escapes: C0 (line breaks included), DEL, C1, bidirectional marks, separators, BOM. */
export const UNSAFE_CHARACTERS = new RegExp(`[${UNSAFE_CLASS}]`, 'g');
/** The same but the line feed: what must never reach stdout raw, whatever the renderer. */
const UNSAFE_BUT_LINE_FEED = new RegExp(`[${UNSAFE_CLASS.replace('\\u0000-\\u001f', '\\u0000-\\u0009\\u000b-\\u001f')}]`, 'g');

const escape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

export function safeText(text: string, maxLength = Infinity): string {
  const visible = text.replace(UNSAFE_CHARACTERS, escape);
  if (visible.length <= maxLength) return visible;
  return `${visible.slice(0, Math.max(0, maxLength - 1))}…`;
}

/**
 * The last guard on stdout: any control character a renderer let through becomes the same
 * visible `\uXXXX` escape. Inside JSON strings that is the same value (JSON leaves C1 controls,
 * bidirectional marks and U+2028 raw); in text, the escape `safeText` would have written.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE_BUT_LINE_FEED, escape);
}
