import {
  API_BASE_PATH,
  SESSION_COMPLETED_EVENT,
  SESSION_PATH,
  VALIDATION_METHODS,
  VERIFICATION_STATUSES,
} from './constants.js';
import {
  duplicateReporter,
  IssueList,
  readEnum,
  readGroup,
  readTimestamp,
  readWith,
  reportMissing,
} from './field-readers.js';
import {
  CONFLICTING_SESSION_IDS,
  calendarDateRule,
  detailsUrlRule,
  durationRule,
  ipAddressRule,
  nonEmptyStringRule,
  parseDurationMs,
  scoreRule,
  sessionIdRule,
  stringRule,
} from './field-rules.js';
import { type FoundFields, fieldLookup, isRecord, pickFields } from './normalize-key.js';
import { describe, readValidationCheck } from './validation-check.js';
import type { NormalizedWebhook, NormalizeWebhookResult, WebhookShape } from './webhook-types.js';

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
const SCORE_FIELDS = ['document', 'liveness', 'oneToOne', 'total'] as const;
const SCORES = fieldLookup(SCORE_FIELDS);
const USER_DATA_FIELDS = ['name', 'documentNumber', 'dateOfBirth', 'nationality'] as const;
const USER_DATA = fieldLookup(USER_DATA_FIELDS);
const VALIDATION_RESULT_FIELDS = ['documentAuthenticity', 'facialMatch', 'livenessDetection'] as const;
const VALIDATION_RESULTS = fieldLookup(VALIDATION_RESULT_FIELDS);
const METADATA_FIELDS = ['ipAddress', 'geolocation', 'device'] as const;
const METADATA = fieldLookup(METADATA_FIELDS, {
  ip: 'ipAddress',
  deviceInformation: 'device',
  deviceInfo: 'device',
});

/** The path of an absolute URL already checked by the URL rule, without query or fragment. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  const fragment = url.indexOf('#');
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? url : url.slice(0, end);
}

// The readers below assign each property by name (`out.status = …`) rather than through a
// helper taking the name: a store under a computed name is a megamorphic keyed store in V8,
// and the profile of the status shape showed those among its top frames.

function readV1(found: TopLevel, issues: IssueList, out: Out): void {
  reportMissing(V1_FIELDS, found, issues);
  const shortKey = readWith(nonEmptyStringRule, found.shortKey, issues, undefined, 'shortKey');
  if (shortKey !== undefined) out.shortKey = shortKey;
  const startedAt = readTimestamp(found.startedAt, issues, 'startedAt');
  if (startedAt !== undefined) {
    out.startedAt = startedAt.date;
    out.startedAtIso = startedAt.iso;
  }
  const endedAt = readTimestamp(found.endedAt, issues, 'endedAt');
  if (endedAt !== undefined) {
    out.endedAt = endedAt.date;
    out.endedAtIso = endedAt.iso;
  }
  const duration = readWith(durationRule, found.duration, issues, undefined, 'duration');
  if (duration !== undefined) {
    out.duration = duration;
    const durationMs = parseDurationMs(duration);
    if (durationMs !== undefined) out.durationMs = durationMs;
  }
  const detailsURL = readWith(detailsUrlRule, found.detailsURL, issues, undefined, 'detailsURL');
  if (detailsURL !== undefined) {
    out.detailsURL = detailsURL;
    const path = pathOf(detailsURL);
    const encodedId = encodeURIComponent(String(out.sessionId));
    if (!path.endsWith(encodedId) || !path.endsWith(DETAILS_PATH, path.length - encodedId.length)) {
      issues.add(['detailsURL'], `does not end in ${API_BASE_PATH}${SESSION_PATH}/<this session's id>`);
    }
  }
  const validation = readEnum(VALIDATION_METHODS, found.validation, issues, 'validation');
  if (validation !== undefined) out.validation = validation;
  const scores = readGroup(found.scores, issues, 'scores');
  if (scores !== undefined) {
    const fields = pickFields(scores, SCORES, duplicateReporter(issues, 'scores'));
    const read: Out = {};
    const document = readWith(scoreRule, fields.document, issues, 'scores', 'document');
    if (document !== undefined) read.document = document;
    const liveness = readWith(scoreRule, fields.liveness, issues, 'scores', 'liveness');
    if (liveness !== undefined) read.liveness = liveness;
    const oneToOne = readWith(scoreRule, fields.oneToOne, issues, 'scores', 'oneToOne');
    if (oneToOne !== undefined) read.oneToOne = oneToOne;
    const total = readWith(scoreRule, fields.total, issues, 'scores', 'total');
    if (total !== undefined) read.total = total;
    reportMissing(SCORE_FIELDS, fields, issues, 'scores');
    out.scores = read;
  }
}

function readUserData(userData: Record<string, unknown>, issues: IssueList): Out {
  const fields = pickFields(userData, USER_DATA, duplicateReporter(issues, 'userData'));
  const read: Out = {};
  const name = readWith(stringRule, fields.name, issues, 'userData', 'name');
  if (name !== undefined) read.name = name;
  const documentNumber = readWith(stringRule, fields.documentNumber, issues, 'userData', 'documentNumber');
  if (documentNumber !== undefined) read.documentNumber = documentNumber;
  const nationality = readWith(stringRule, fields.nationality, issues, 'userData', 'nationality');
  if (nationality !== undefined) read.nationality = nationality;
  const dateOfBirth = readWith(calendarDateRule, fields.dateOfBirth, issues, 'userData', 'dateOfBirth');
  if (dateOfBirth !== undefined) read.dateOfBirth = dateOfBirth;
  reportMissing(USER_DATA_FIELDS, fields, issues, 'userData');
  return read;
}

function readValidationResults(results: Record<string, unknown>, issues: IssueList): Out {
  const fields = pickFields(results, VALIDATION_RESULTS, duplicateReporter(issues, 'validationResults'));
  const read: Out = {};
  for (const name of VALIDATION_RESULT_FIELDS) {
    const field = fields[name];
    if (field === undefined) continue;
    const check = readValidationCheck(field);
    if (check.ok) read[name] = check.check;
    else issues.at('validationResults', name, check.message);
  }
  reportMissing(VALIDATION_RESULT_FIELDS, fields, issues, 'validationResults');
  return read;
}

function readMetadata(metadata: Record<string, unknown>, issues: IssueList): Out {
  const fields = pickFields(metadata, METADATA, duplicateReporter(issues, 'metadata'));
  const read: Out = {};
  const ipAddress = readWith(ipAddressRule, fields.ipAddress, issues, 'metadata', 'ipAddress');
  if (ipAddress !== undefined) read.ipAddress = ipAddress;
  for (const name of ['geolocation', 'device'] as const) {
    const field = fields[name];
    if (field === undefined) continue;
    if (isRecord(field) || typeof field === 'string') read[name] = field;
    else issues.at('metadata', name, `expected an object or a string, got ${describe(field)}`);
  }
  reportMissing(METADATA_FIELDS, fields, issues, 'metadata');
  return read;
}

function readStatus(found: TopLevel, issues: IssueList, out: Out): void {
  reportMissing(STATUS_FIELDS, found, issues);
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
  const timestamp = readTimestamp(found.timestamp, issues, 'timestamp');
  if (timestamp !== undefined) {
    out.timestamp = timestamp.date;
    out.timestampIso = timestamp.iso;
  }
  const status = readEnum(VERIFICATION_STATUSES, found.status, issues, 'status');
  if (status !== undefined) out.status = status;
  const confidenceScore = readWith(scoreRule, found.confidenceScore, issues, undefined, 'confidenceScore');
  if (confidenceScore !== undefined) out.confidenceScore = confidenceScore;
  const userData = readGroup(found.userData, issues, 'userData');
  if (userData !== undefined) out.userData = readUserData(userData, issues);
  const results = readGroup(found.validationResults, issues, 'validationResults');
  if (results !== undefined) out.validationResults = readValidationResults(results, issues);
  const metadata = readGroup(found.metadata, issues, 'metadata');
  if (metadata !== undefined) out.metadata = readMetadata(metadata, issues);
}

function readSessionId(found: TopLevel, issues: IssueList): NormalizeWebhookResult | string {
  const first = readWith(sessionIdRule, found.id, issues, undefined, 'id');
  const second = readWith(sessionIdRule, found.sessionId, issues, undefined, 'sessionId');
  const id = first ?? second;
  if (id === undefined) {
    if (issues.items.length === 0) issues.add(['sessionId'], 'missing: a webhook needs "id" or "sessionId"');
    return { ok: false, code: 'missing_session_id', issues: issues.items };
  }
  if (first !== undefined && second !== undefined && second !== first) {
    issues.add(['sessionId'], CONFLICTING_SESSION_IDS);
    return { ok: false, code: 'conflicting_session_id', issues: issues.items };
  }
  return id;
}

function shapeOf(found: TopLevel): WebhookShape {
  // Named loads (see the note above readV1); `normalize-webhook-body.test.ts` holds them equal to V1_FIELDS and STATUS_FIELDS.
  const hasV1 =
    found.id !== undefined ||
    found.shortKey !== undefined ||
    found.startedAt !== undefined ||
    found.endedAt !== undefined ||
    found.duration !== undefined ||
    found.detailsURL !== undefined ||
    found.scores !== undefined ||
    found.validation !== undefined;
  const hasStatus =
    found.event !== undefined ||
    found.timestamp !== undefined ||
    found.status !== undefined ||
    found.confidenceScore !== undefined ||
    found.userData !== undefined ||
    found.validationResults !== undefined ||
    found.metadata !== undefined ||
    (found.sessionId !== undefined && !hasV1);
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
  const found = pickFields(value, TOP_LEVEL, duplicateReporter(issues));
  const sessionId = readSessionId(found, issues);
  if (typeof sessionId !== 'string') return sessionId;

  const shape = shapeOf(found);
  const out: Out = { sessionId, shape, issues: issues.items, raw: value };
  if (shape !== 'status') readV1(found, issues, out);
  if (shape !== 'v1') readStatus(found, issues, out);
  return { ok: true, webhook: out as unknown as NormalizedWebhook };
}
