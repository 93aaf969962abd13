import type { z } from 'zod';

/** A validation problem, located by a JSON path such as `$[3].labels[0]`. */
export interface SchemaProblem {
  path: string;
  message: string;
}

/** Result of validating untrusted data: the value when it is valid, the problems otherwise. */
/** `notes`: what was changed to accept the input (an issue's text cut to its cap), for a warning each. */
export type Parsed<T> = { ok: true; value: T; problems: []; notes?: string[] } | { ok: false; value: undefined; problems: SchemaProblem[] };

export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

export function problemsOf(error: z.ZodError): SchemaProblem[] {
  return error.issues.map((issue) => ({ path: jsonPath(issue.path), message: issue.message }));
}
