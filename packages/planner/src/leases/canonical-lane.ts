/**
 * One spelling per lane. Leases compare paths as strings (equal, or one a prefix of the other at a
 * `/`), so two spellings of one path must become the same string before any lease decision —
 * else `packages//payments/x.ts` slips past a lease on `packages/payments`. The rule:
 *
 * - a backslash is a separator (`packages\payments` is `packages/payments`);
 * - empty and `.` segments collapse (`packages//./payments/` → `packages/payments`);
 * - surrounding whitespace goes (a typo, never a different lane);
 * - Unicode is taken in its composed form (NFC): `café` typed on Linux and `cafe\u0301`, as macOS
 *   file APIs hand it out, are one lane (on APFS and NTFS they name the same file);
 * - `.` (or `./`, `.//.`…) alone is the whole repository;
 * - refused: the empty string and `/` (they must not silently mean the whole repository), any
 *   `..` segment, absolute paths (`/x`, `C:\x`, `\\server\x`) and `~` — none names a place
 *   inside the repository.
 *
 * NOTE: `..` is refused rather than resolved: `a/../b` is `b` only when `a` is not a symlink,
 * which a pure function cannot know; refusing never narrows a lease.
 */
import { InputError } from '../errors.js';

/** The lane of the whole repository: held by a serial issue, it overlaps every other lane. */
export const WHOLE_REPOSITORY = '.';

export type LaneCheck = { ok: true; lane: string } | { ok: false; problem: string };

/** The canonical spelling of a lane or path, or why it has none. Pure. */
export function checkLane(text: string): LaneCheck {
  return checkPathSpelling(text.normalize('NFC'));
}

/**
 * `checkLane` without the Unicode composition: the path as the file system spells it, byte for
 * byte, for walking it (a live fence looks at each name on the way: the composed spelling of a
 * name stored decomposed is another name on Linux). Pure.
 */
export function checkPathSpelling(text: string): LaneCheck {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, problem: 'empty (the whole repository is ".")' };
  const slashed = trimmed.replace(/\\/g, '/');
  if (slashed.startsWith('/')) return { ok: false, problem: 'an absolute path, not a path inside the repository' };
  if (/^[A-Za-z]:/.test(slashed)) return { ok: false, problem: 'a drive path, not a path inside the repository' };
  if (slashed.startsWith('~')) return { ok: false, problem: 'a home directory (~), not a path inside the repository' };
  const segments = slashed.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return { ok: false, problem: 'it leaves the repository (..)' };
  return { ok: true, lane: segments.length === 0 ? WHOLE_REPOSITORY : segments.join('/') };
}

/** The canonical spelling of a lane or path; throws `InputError` naming it when it has none. */
export function canonicalLane(text: string): string {
  const checked = checkLane(text);
  if (!checked.ok) throw new InputError(`lane ${JSON.stringify(text)}: ${checked.problem}`);
  return checked.lane;
}
