/**
 * Issue text is untrusted: before it reaches a terminal — or a file or pipe that someone later
 * shows on one — control characters (ANSI and OSC escapes, carriage returns, C1 controls, line
 * breaks) and bidirectional marks are shown as visible escapes, so a title cannot rewrite the
 * screen, open a hyperlink, reorder what a reader sees or start a new line where it should not.
 */
import { invisibleExcept } from '@waves/planner';
/** Every character `safeText` escapes: `INVISIBLE_CLASS` (C0 with the line breaks, DEL, C1, format and default-ignorable characters, separators, Hangul fillers). */
export const UNSAFE_CHARACTERS = invisibleExcept();
/** The same but the line feed: what must never reach stdout raw, whatever the renderer. */
const UNSAFE_BUT_LINE_FEED = invisibleExcept('\n');

const escape = (ch: string) => {
  const code = ch.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

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
  // Each UTF-16 unit as `\uXXXX` (a tag character as its surrogate pair): inside a JSON string the same value.
  return text.replace(UNSAFE_BUT_LINE_FEED, (ch) => [...Array(ch.length).keys()].map((i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}
