// What a text field may hold, for every text the service reads (the API's fields and
// filters, the checkout's form): the one rule, so both engines store the same thing.
// PostgreSQL refuses NUL and unpaired surrogates in text; SQLite would store them. Control
// characters (C0, DEL, C1) have no place in a name, an id or an address either, and a free
// text (a description, a note) takes only tab, line feed and carriage return of them.
//
// Spelled as code-unit ranges, without `\p{…}` or the `u` flag: the OpenAPI document carries
// these patterns, and they must mean the same to validators that add the `u` flag (there an
// astral character is one code point outside the ranges; a lone surrogate still matches
// none of the alternatives) and to those that do not (there it is the surrogate pair).

/** A single-line text: names, ids, codes, e-mails, URLs, card fields. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const SINGLE_LINE = /^(?:[^\u0000-\u001f\u007f-\u009f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;

/** A free text: as a single line, plus tab, line feed and carriage return. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const FREE_TEXT = /^(?:[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;

/** A required text holds something besides spaces. */
export const NOT_BLANK = /\S/;

/** A text that is never markup: no angle brackets (names and numbers of the clients' API). */
export const NO_ANGLE_BRACKETS = /^[^<>]*$/;

export type TextKind = 'line' | 'free';

const TEXT_PATTERNS: Record<TextKind, RegExp> = { line: SINGLE_LINE, free: FREE_TEXT };

export const TEXT_MESSAGES: Record<TextKind, string> = {
  line: 'may not contain control characters (NUL, tab, line breaks, DEL, C1) or unpaired surrogates',
  free: 'may not contain control characters other than tab and line breaks, nor unpaired surrogates',
};

/** Whether `value` is a text of this kind. */
export function isText(value: string, kind: TextKind): boolean {
  return TEXT_PATTERNS[kind].test(value);
}
