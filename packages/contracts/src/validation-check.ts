import { scoreRule } from './field-rules.js';
import { fieldLookup, isRecord, pickFields } from './normalize-key.js';

/**
 * One entry of `validationResults` (document authenticity, facial match, liveness), whatever
 * form the service sent it in: a boolean, a 0–100 score, a status word or an object.
 */
export interface ValidationCheck {
  /** Whether the check passed, when the value says so. */
  readonly passed?: boolean;
  /** The check's score (0–100), when the value carries one. */
  readonly score?: number;
  /** The value exactly as received. */
  readonly raw: unknown;
}

const PASSED_WORDS = new Set([
  'PASSED',
  'PASS',
  'OK',
  'TRUE',
  'YES',
  'VALID',
  'VERIFIED',
  'APPROVED',
  'SUCCESS',
  'MATCH',
]);
const FAILED_WORDS = new Set([
  'FAILED',
  'FAIL',
  'FALSE',
  'NO',
  'INVALID',
  'REJECTED',
  'FAILURE',
  'NO_MATCH',
  'MISMATCH',
]);

const checkObjectFields = fieldLookup(['passed', 'score'] as const, {
  pass: 'passed',
  success: 'passed',
  valid: 'passed',
  result: 'passed',
  status: 'passed',
  confidence: 'score',
});

/** The outcome of reading one validation check: the check, or why it could not be read. */
export type ValidationCheckResult = { ok: true; check: ValidationCheck } | { ok: false; message: string };

function passedFromWord(word: string): boolean | undefined {
  const upper = word
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
  if (PASSED_WORDS.has(upper)) return true;
  if (FAILED_WORDS.has(upper)) return false;
  return undefined;
}

function passedFrom(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return passedFromWord(value);
  return undefined;
}

/**
 * Normalises one validation check to `{ passed?, score?, raw }`.
 *
 * @example
 * readValidationCheck('PASSED') // { ok: true, check: { passed: true, raw: 'PASSED' } }
 */
export function readValidationCheck(value: unknown): ValidationCheckResult {
  if (typeof value === 'boolean') return { ok: true, check: { passed: value, raw: value } };
  if (typeof value === 'number') {
    return scoreRule.is(value)
      ? { ok: true, check: { score: value, raw: value } }
      : { ok: false, message: `score ${value} is outside 0–100` };
  }
  if (typeof value === 'string') {
    const passed = passedFromWord(value);
    return passed === undefined
      ? { ok: false, message: `unrecognised check status "${value.slice(0, 40)}"` }
      : { ok: true, check: { passed, raw: value } };
  }
  if (isRecord(value)) return readCheckObject(value);
  return {
    ok: false,
    message: `expected a boolean, a 0–100 number, a status word or an object, got ${describe(value)}`,
  };
}

function readCheckObject(value: Record<string, unknown>): ValidationCheckResult {
  // The service's own spelling, `{ passed, score }`, skips the casing-tolerant lookup.
  const exact = 'passed' in value || 'score' in value;
  const found = exact ? undefined : pickFields(value, checkObjectFields, ignoreDuplicate);
  const passedValue = exact ? value.passed : found?.passed;
  const scoreValue = exact ? value.score : found?.score;
  const passed = passedFrom(passedValue);
  if (scoreValue !== undefined && !scoreRule.is(scoreValue)) {
    return { ok: false, message: `score is ${describe(scoreValue)}, not a number within 0–100` };
  }
  if (passed === undefined && scoreValue === undefined) {
    return { ok: false, message: 'object carries neither a recognisable pass/fail value nor a score' };
  }
  const check: { passed?: boolean; score?: number; raw: unknown } = { raw: value };
  if (passed !== undefined) check.passed = passed;
  if (scoreValue !== undefined) check.score = scoreValue;
  return { ok: true, check };
}

function ignoreDuplicate(): void {}

/** A short, secret-free description of a JSON value's type for issue messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
