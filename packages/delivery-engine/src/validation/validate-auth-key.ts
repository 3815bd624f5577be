import { createRequire } from 'node:module';
import { AUTH_KEY_MIN_LENGTH } from '@kyc/contracts';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

export { generateAuthKey } from './generate-auth-key.js';

/**
 * Least estimated guesses (as log10) for a key to count as unpredictable: zxcvbn's top score
 * (4). An Auth Key is a long-lived bearer credential that anyone can try against a public
 * receiver without lockout; at 1 000 guesses per second, 10^10 guesses take about four months,
 * long enough for the flood to be noticed, while score 3 (10^8) falls in about a day.
 */
export const AUTH_KEY_MIN_GUESSES_LOG10 = 10;

/** Longest key accepted: ample for any generated key (43 characters), and bounds the estimator's work. */
export const AUTH_KEY_MAX_LENGTH = 128;

// The estimator's cost grows faster than the length (a random 43-character key takes ~0.4 s on
// one core, 24 characters ~50 ms), so the key is judged in windows of this size. Guessing the
// whole key means guessing each window, so one strong window is a sound lower bound for the key.
const WINDOW = 24;

/** Stable codes of a refused Auth Key. */
export type AuthKeyErrorCode = 'too_short' | 'too_long' | 'predictable' | 'invalid_characters' | 'not_a_string';

/** The answer of {@link validateAuthKey}. */
export type AuthKeyValidation = { ok: true } | { ok: false; code: AuthKeyErrorCode; message: string };

/** Options of {@link validateAuthKey}. */
export interface ValidateAuthKeyOptions {
  /** Words the key must not be built from (company name, domain): they count as known to an attacker. */
  userInputs?: readonly string[];
}

// Visible ASCII only: the key travels in the Authorization header, where other bytes are
// either invalid or silently trimmed.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

// Named by kind only: the estimator's own warnings quote sample text ("aaa", "abc") that can be
// part of the key itself.
const PATTERN_NAMES: Readonly<Record<string, string>> = {
  dictionary: 'common words or passwords',
  spatial: 'keyboard patterns',
  repeat: 'repeated characters',
  sequence: 'character sequences',
  regex: 'a recognisable pattern',
  date: 'dates',
  wordSequence: 'a sequence of words',
};

let estimator: ZxcvbnFactory | undefined;
function getEstimator(): ZxcvbnFactory {
  // Loaded and built on first use: the dictionaries take ~150 ms and ~40 MB of memory, which
  // an engine that never validates a key (a worker, a service that checked keys elsewhere)
  // should not pay. `require` keeps validateAuthKey synchronous.
  if (estimator !== undefined) return estimator;
  const load = createRequire(import.meta.url);
  const { ZxcvbnFactory: Factory } = load('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
  const common = load('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  const en = load('@zxcvbn-ts/language-en') as typeof import('@zxcvbn-ts/language-en');
  estimator = new Factory({
    translations: en.translations,
    graphs: common.adjacencyGraphs,
    dictionary: { ...common.dictionary, ...en.dictionary },
  });
  return estimator;
}

/**
 * Checks a company's Auth Key: a string of at least AUTH_KEY_MIN_LENGTH visible ASCII
 * characters that the zxcvbn strength estimator (common + English dictionaries, keyboard
 * patterns, sequences, repeats, dates, l33t) puts at 10^10 guesses or more. Messages never
 * contain the key or any part of it.
 *
 * @example
 * ```ts
 * validateAuthKey('passwordpassword'); // { ok: false, code: 'predictable', message: '…' }
 * validateAuthKey(generateAuthKey()); // { ok: true }
 * ```
 */
export function validateAuthKey(key: unknown, options: ValidateAuthKeyOptions = {}): AuthKeyValidation {
  if (typeof key !== 'string') {
    return { ok: false, code: 'not_a_string', message: `Auth Key must be a string (got ${typeof key})` };
  }
  if (key.length < AUTH_KEY_MIN_LENGTH) {
    return {
      ok: false,
      code: 'too_short',
      message: `Auth Key has ${key.length} characters; at least ${AUTH_KEY_MIN_LENGTH} are required (generateAuthKey() makes a strong one)`,
    };
  }
  if (key.length > AUTH_KEY_MAX_LENGTH) {
    return {
      ok: false,
      code: 'too_long',
      message: `Auth Key has ${key.length} characters; at most ${AUTH_KEY_MAX_LENGTH} are accepted`,
    };
  }
  if (!HEADER_SAFE.test(key)) {
    return {
      ok: false,
      code: 'invalid_characters',
      message:
        'Auth Key may contain only visible ASCII characters (no spaces, control characters or non-ASCII letters): it is sent in the Authorization header',
    };
  }
  // Options come from configuration code that may not be typed: ignore what is not a list of words.
  const given: unknown = typeof options === 'object' && options !== null ? options.userInputs : undefined;
  const userInputs = Array.isArray(given) ? given.filter((word): word is string => typeof word === 'string') : [];
  let result: ReturnType<ZxcvbnFactory['check']> | undefined;
  for (let start = 0; start < key.length; start += WINDOW) {
    const window = getEstimator().check(key.slice(start, start + WINDOW), userInputs);
    if (result === undefined || window.guessesLog10 > result.guessesLog10) result = window;
    if (result.guessesLog10 >= AUTH_KEY_MIN_GUESSES_LOG10) break;
  }
  if (result !== undefined && result.guessesLog10 < AUTH_KEY_MIN_GUESSES_LOG10) {
    const found = [...new Set(result.sequence.map((match) => PATTERN_NAMES[match.pattern]).filter(Boolean))];
    const why = found.length > 0 ? ` It is built from ${found.join(', ')}.` : '';
    return {
      ok: false,
      code: 'predictable',
      message: `Auth Key is predictable: about 10^${Math.floor(result.guessesLog10)} guesses would find it, at least 10^${AUTH_KEY_MIN_GUESSES_LOG10} are required.${why} Use generateAuthKey() for a random key.`,
    };
  }
  return { ok: true };
}
