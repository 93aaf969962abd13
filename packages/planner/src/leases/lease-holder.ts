/**
 * Who may hold a lease, as a person or a config names it. The readers skip a lease whose holder
 * is empty (it holds nothing), so a holder that would be written that way — `--holder "$AGENT"`
 * with the variable unset, `leases.holder: ""` — is refused where it is given, never answered
 * `acquired`. A holder is shown in tables and messages, and a run's holder adds its clone and run
 * id to it: one line, bounded.
 */

/** The longest holder a person or a config may give (a run's holder adds about 60 characters). */
export const MAX_HOLDER_LENGTH = 200;

/** Why `holder` cannot hold a lease, or null. Pure. */
export function holderProblem(holder: string): string | null {
  if (holder.trim() === '') return 'must not be empty (a lease with no holder holds nothing)';
  if (holder.length > MAX_HOLDER_LENGTH) return `is longer than ${MAX_HOLDER_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(holder)) return 'holds a control character (a line break, a tab, an escape)';
  return null;
}
