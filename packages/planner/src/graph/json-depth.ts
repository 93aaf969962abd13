/**
 * How deep a JSON text nests, read in one pass without parsing it: configuration a repository
 * holds (a tsconfig, a package.json) is parsed and walked by recursive code — TypeScript's config
 * parser, waves' walk of `exports` conditions — that a few kilobytes of `[[[[…` nested thousands
 * deep would crash ("Maximum call stack size exceeded"). No real config nests past a dozen.
 */

/** The deepest nesting waves parses in a configuration file. */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` nests arrays and objects more than `max` deep (strings, comments and escapes skipped). */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
      // A tsconfig's line comment.
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}
