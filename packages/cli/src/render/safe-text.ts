/**
 * Issue text is untrusted: before it reaches a terminal, control characters (ANSI escapes,
 * carriage returns) and bidirectional overrides are shown as visible escapes, so a title cannot
 * rewrite the screen or reorder what a reader sees.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

export function safeText(text: string, maxLength = Infinity): string {
  const visible = text.replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (visible.length <= maxLength) return visible;
  return `${visible.slice(0, Math.max(0, maxLength - 1))}…`;
}
