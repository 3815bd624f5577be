/**
 * Text from outside (a receiver's response, an error a socket or transport produced) made safe to
 * store. Postgres refuses U+0000 in `text` and `json`, and a lone UTF-16 surrogate is no Unicode
 * at all (JSON.stringify writes it as an escape Postgres then refuses): one such character in one
 * receiver's answer would fail the whole grouped statement that records other companies'
 * results. Both stores store the same text, so an attempt log reads the same on either.
 */

/** Shown in place of U+0000: the "symbol for null", so an operator sees a NUL was there. */
export const NUL_REPLACEMENT = '\u2400';

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// One scan, no copy, for the text of nearly every answer: nothing to replace. (A NUL is what
// this looks for, so the control character in the class is meant.)
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is the character Postgres refuses
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

/** `text` with U+0000 replaced by ␀ (U+2400) and lone surrogates by U+FFFD; other text unchanged. */
export function storableText(text: string): string {
  if (!SUSPECT.test(text)) return text;
  return text.replaceAll('\u0000', NUL_REPLACEMENT).replace(LONE_SURROGATE, '\uFFFD');
}

/** {@link storableText} of an optional value, `null` when absent (the SQL stores' column value). */
export function storableOrNull(text: string | undefined): string | null {
  return text === undefined ? null : storableText(text);
}
