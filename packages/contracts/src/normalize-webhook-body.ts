import {
  API_BASE_PATH,
  SESSION_COMPLETED_EVENT,
  SESSION_PATH,
  VALIDATION_METHODS,
  VERIFICATION_STATUSES,
} from './constants.js';
import {
  calendarDateRule,
  detailsUrlRule,
  durationRule,
  type FieldRule,
  ipAddressRule,
  isoTimestampRule,
  nonEmptyStringRule,
  parseDurationMs,
  scoreRule,
  sessionIdRule,
  stringRule,
} from './field-rules.js';
import { type FoundFields, fieldLookup, isRecord, pickFields } from './normalize-key.js';
import { timestampToDate } from './timestamp-to-date.js';
import { describe, readValidationCheck } from './validation-check.js';
import type { NormalizedWebhook, NormalizeWebhookResult, WebhookIssue, WebhookShape } from './webhook-types.js';

type Path = readonly (string | number)[];
type Out = Record<string, unknown>;

const DETAILS_PATH = `${API_BASE_PATH}${SESSION_PATH}/`;
type TopLevel = FoundFields<(typeof TOP_LEVEL_FIELDS)[number]>;

const V1_FIELDS = ['shortKey', 'startedAt', 'endedAt', 'duration', 'detailsURL', 'scores', 'validation'] as const;
const STATUS_FIELDS = [
  'event',
  'timestamp',
  'status',
  'confidenceScore',
  'userData',
  'validationResults',
  'metadata',
] as const;
const TOP_LEVEL_FIELDS = ['id', 'sessionId', ...V1_FIELDS, ...STATUS_FIELDS] as const;
const TOP_LEVEL = fieldLookup(TOP_LEVEL_FIELDS, {
  verificationStatus: 'status',
  confidence: 'confidenceScore',
});
const SCORES = fieldLookup(['document', 'liveness', 'oneToOne', 'total'] as const);
const USER_DATA = fieldLookup(['name', 'documentNumber', 'dateOfBirth', 'nationality'] as const);
const VALIDATION_RESULTS = fieldLookup(['documentAuthenticity', 'facialMatch', 'livenessDetection'] as const);
const METADATA = fieldLookup(['ipAddress', 'geolocation', 'device'] as const, {
  ip: 'ipAddress',
  deviceInformation: 'device',
  deviceInfo: 'device',
});

class IssueList {
  readonly items: WebhookIssue[] = [];
  add(path: Path, message: string): void {
    this.items.push({ path, message });
  }
}

/** Reads one field: the typed value, or an issue and nothing. */
function readWith<T>(rule: FieldRule<T>, found: unknown, path: Path, issues: IssueList): T | undefined {
  if (found === undefined) return undefined;
  if (rule.is(found)) return found;
  issues.add(path, `expected ${rule.expected} (got ${describe(found)})`);
  return undefined;
}

/** Enum values are matched exactly; a different casing is accepted and reported, never silently. */
function readEnum<T extends string>(
  values: readonly T[],
  found: unknown,
  path: Path,
  issues: IssueList,
): T | undefined {
  if (found === undefined) return undefined;
  const value = found;
  if (typeof value === 'string') {
    if ((values as readonly string[]).includes(value)) return value as T;
    const upper = value.toUpperCase();
    const match = values.find((candidate) => candidate === upper);
    if (match !== undefined) {
      issues.add(path, `"${value}" read as "${match}"; the service sends upper case`);
      return match;
    }
  }
  const shown = typeof value === 'string' ? `"${value.slice(0, 40)}"` : describe(value);
  issues.add(path, `expected one of ${values.join(', ')}, got ${shown}`);
  return undefined;
}

function readTimestamp(found: unknown, issues: IssueList, out: Out, name: string, isoName: string): void {
  const text = readWith(isoTimestampRule, found, [name], issues);
  if (text === undefined) return;
  out[name] = timestampToDate(text);
  out[isoName] = text;
}

function readGroup(found: unknown, path: Path, issues: IssueList): Record<string, unknown> | undefined {
  if (found === undefined) return undefined;
  if (isRecord(found)) return found;
  issues.add(path, `expected an object, got ${describe(found)}`);
  return undefined;
}

function reportMissing(
  names: readonly string[],
  found: Readonly<Record<string, unknown>>,
  path: Path,
  issues: IssueList,
): void {
  for (const name of names) if (found[name] === undefined) issues.add([...path, name], 'missing');
}

function setIfDefined(out: Out, name: string, value: unknown): void {
  if (value !== undefined) out[name] = value;
}

function duplicateReporter(path: Path, issues: IssueList) {
  return (field: string, ignoredKey: string) =>
    issues.add([...path, field], `also present as "${ignoredKey}"; that spelling was ignored`);
}

/** The path of an absolute URL already checked by the URL rule, without query or fragment. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  const fragment = url.indexOf('#');
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? url : url.slice(0, end);
}

function readV1(found: TopLevel, issues: IssueList, out: Out): void {
  reportMissing(V1_FIELDS, found, [], issues);
  setIfDefined(out, 'shortKey', readWith(nonEmptyStringRule, found.shortKey, ['shortKey'], issues));
  readTimestamp(found.startedAt, issues, out, 'startedAt', 'startedAtIso');
  readTimestamp(found.endedAt, issues, out, 'endedAt', 'endedAtIso');
  const duration = readWith(durationRule, found.duration, ['duration'], issues);
  if (duration !== undefined) {
    out.duration = duration;
    setIfDefined(out, 'durationMs', parseDurationMs(duration));
  }
  const detailsURL = readWith(detailsUrlRule, found.detailsURL, ['detailsURL'], issues);
  if (detailsURL !== undefined) {
    out.detailsURL = detailsURL;
    const path = pathOf(detailsURL);
    const encodedId = encodeURIComponent(String(out.sessionId));
    if (!path.endsWith(encodedId) || !path.endsWith(DETAILS_PATH, path.length - encodedId.length)) {
      issues.add(['detailsURL'], `does not end in ${API_BASE_PATH}${SESSION_PATH}/<this session's id>`);
    }
  }
  setIfDefined(out, 'validation', readEnum(VALIDATION_METHODS, found.validation, ['validation'], issues));
  const scores = readGroup(found.scores, ['scores'], issues);
  if (scores !== undefined) {
    const fields = pickFields(scores, SCORES, duplicateReporter(['scores'], issues));
    const read: Out = {};
    for (const name of ['document', 'liveness', 'oneToOne', 'total'] as const) {
      setIfDefined(read, name, readWith(scoreRule, fields[name], ['scores', name], issues));
    }
    reportMissing(['document', 'liveness', 'oneToOne', 'total'], fields, ['scores'], issues);
    out.scores = read;
  }
}

function readStatus(found: TopLevel, issues: IssueList, out: Out): void {
  reportMissing(STATUS_FIELDS, found, [], issues);
  const event = found.event;
  if (event !== undefined) {
    if (typeof event !== 'string') issues.add(['event'], `expected a string, got ${describe(event)}`);
    else {
      out.event = event;
      if (event !== SESSION_COMPLETED_EVENT) {
        issues.add(
          ['event'],
          `unexpected event "${event.slice(0, 40)}"; the service sends "${SESSION_COMPLETED_EVENT}"`,
        );
      }
    }
  }
  readTimestamp(found.timestamp, issues, out, 'timestamp', 'timestampIso');
  setIfDefined(out, 'status', readEnum(VERIFICATION_STATUSES, found.status, ['status'], issues));
  setIfDefined(out, 'confidenceScore', readWith(scoreRule, found.confidenceScore, ['confidenceScore'], issues));

  const userData = readGroup(found.userData, ['userData'], issues);
  if (userData !== undefined) {
    const fields = pickFields(userData, USER_DATA, duplicateReporter(['userData'], issues));
    const read: Out = {};
    for (const name of ['name', 'documentNumber', 'nationality'] as const) {
      setIfDefined(read, name, readWith(stringRule, fields[name], ['userData', name], issues));
    }
    setIfDefined(
      read,
      'dateOfBirth',
      readWith(calendarDateRule, fields.dateOfBirth, ['userData', 'dateOfBirth'], issues),
    );
    reportMissing(['name', 'documentNumber', 'dateOfBirth', 'nationality'], fields, ['userData'], issues);
    out.userData = read;
  }

  const results = readGroup(found.validationResults, ['validationResults'], issues);
  if (results !== undefined) {
    const fields = pickFields(results, VALIDATION_RESULTS, duplicateReporter(['validationResults'], issues));
    const read: Out = {};
    for (const name of ['documentAuthenticity', 'facialMatch', 'livenessDetection'] as const) {
      const field = fields[name];
      if (field === undefined) continue;
      const check = readValidationCheck(field);
      if (check.ok) read[name] = check.check;
      else issues.add(['validationResults', name], check.message);
    }
    reportMissing(['documentAuthenticity', 'facialMatch', 'livenessDetection'], fields, ['validationResults'], issues);
    out.validationResults = read;
  }

  const metadata = readGroup(found.metadata, ['metadata'], issues);
  if (metadata !== undefined) {
    const fields = pickFields(metadata, METADATA, duplicateReporter(['metadata'], issues));
    const read: Out = {};
    setIfDefined(read, 'ipAddress', readWith(ipAddressRule, fields.ipAddress, ['metadata', 'ipAddress'], issues));
    for (const name of ['geolocation', 'device'] as const) {
      const field = fields[name];
      if (field === undefined) continue;
      if (isRecord(field) || typeof field === 'string') read[name] = field;
      else issues.add(['metadata', name], `expected an object or a string, got ${describe(field)}`);
    }
    reportMissing(['ipAddress', 'geolocation', 'device'], fields, ['metadata'], issues);
    out.metadata = read;
  }
}

function readSessionId(found: TopLevel, issues: IssueList): NormalizeWebhookResult | string {
  const ids: string[] = [];
  for (const name of ['id', 'sessionId'] as const) {
    const value = readWith(sessionIdRule, found[name], [name], issues);
    if (value !== undefined) ids.push(value);
  }
  const [first, second] = ids;
  if (first === undefined) {
    if (issues.items.length === 0) issues.add(['sessionId'], 'missing: a webhook needs "id" or "sessionId"');
    return { ok: false, code: 'missing_session_id', issues: issues.items };
  }
  if (second !== undefined && second !== first) {
    issues.add(['sessionId'], '"id" and "sessionId" name different sessions');
    return { ok: false, code: 'conflicting_session_id', issues: issues.items };
  }
  return first;
}

function shapeOf(found: TopLevel): WebhookShape {
  const hasV1 = found.id !== undefined || V1_FIELDS.some((name) => found[name] !== undefined);
  const hasStatus =
    STATUS_FIELDS.some((name) => found[name] !== undefined) || (found.sessionId !== undefined && !hasV1);
  if (hasV1 && hasStatus) return 'both';
  return hasStatus ? 'status' : 'v1';
}

/**
 * Reads a parsed JSON webhook body tolerantly, following the project's parsing rules: only
 * the session id (`id` or `sessionId`) is required; every other field is typed when valid and
 * reported in `issues` when missing or malformed; property names match in any casing;
 * unknown properties stay on `raw`. Never throws.
 *
 * @example
 * const result = normalizeWebhookBody(JSON.parse(text));
 * if (result.ok && result.webhook.shape !== 'v1') console.log(result.webhook.status);
 */
export function normalizeWebhookBody(value: unknown): NormalizeWebhookResult {
  const issues = new IssueList();
  if (!isRecord(value)) {
    issues.add([], `expected a JSON object, got ${describe(value)}`);
    return { ok: false, code: 'not_an_object', issues: issues.items };
  }
  const found = pickFields(value, TOP_LEVEL, duplicateReporter([], issues));
  const sessionId = readSessionId(found, issues);
  if (typeof sessionId !== 'string') return sessionId;

  const shape = shapeOf(found);
  const out: Out = { sessionId, shape, issues: issues.items, raw: value };
  if (shape !== 'status') readV1(found, issues, out);
  if (shape !== 'v1') readStatus(found, issues, out);
  return { ok: true, webhook: out as unknown as NormalizedWebhook };
}
