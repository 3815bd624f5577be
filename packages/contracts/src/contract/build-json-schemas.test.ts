import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  sampleApiErrorBody,
  sampleCombinedWebhook,
  sampleSessionDetails,
  sampleStatusWebhook,
  sampleV1Webhook,
} from '../fixtures.js';
import { buildJsonSchemas } from './build-json-schemas.js';
import { CONTRACT_SCHEMAS } from './contract-schemas.js';

// ajv in strict mode refuses unknown keywords and ambiguous schemas: what third-party
// validators in other languages will meet.
function compile(schema: object) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

const schemas = buildJsonSchemas();
// biome-ignore lint/suspicious/noExplicitAny: the cases turn valid bodies into invalid ones on purpose.
type Editable = Record<string, any>;
const mutate = (value: object, change: (copy: Editable) => void) => {
  const copy = structuredClone(value) as Editable;
  change(copy);
  return copy;
};

// Bodies the zod schemas accept or reject; the JSON Schemas must agree on every one.
const cases: Record<string, readonly unknown[]> = {
  'webhook-v1': [
    sampleV1Webhook,
    mutate(sampleV1Webhook, (b) => (b.extra = { later: true })),
    mutate(sampleV1Webhook, (b) => delete b.shortKey),
    mutate(sampleV1Webhook, (b) => (b.scores.total = 100.5)),
    mutate(sampleV1Webhook, (b) => (b.duration = '95 seconds')),
    mutate(sampleV1Webhook, (b) => (b.duration = '1h2m3.5s')),
    mutate(sampleV1Webhook, (b) => (b.startedAt = '2026-11-21 10:13:55')),
    mutate(sampleV1Webhook, (b) => (b.validation = 'automatic')),
    mutate(sampleV1Webhook, (b) => (b.detailsURL = 'ftp://kyc.example.com/x')),
    mutate(sampleV1Webhook, (b) => (b.id = '')),
    mutate(sampleV1Webhook, (b) => (b.id = 'x'.repeat(257))),
  ],
  'webhook-status': [
    sampleStatusWebhook,
    mutate(sampleStatusWebhook, (b) => (b.event = 'session.started')),
    mutate(sampleStatusWebhook, (b) => (b.status = 'DONE')),
    mutate(sampleStatusWebhook, (b) => (b.userData.dateOfBirth = '1990-02-30')),
    mutate(sampleStatusWebhook, (b) => (b.metadata.ipAddress = '2001:db8::24')),
    mutate(sampleStatusWebhook, (b) => (b.metadata.ipAddress = '300.1.1.1')),
    mutate(sampleStatusWebhook, (b) => (b.metadata.device = 'iPhone')),
    mutate(sampleStatusWebhook, (b) => (b.validationResults.facialMatch = false)),
    mutate(sampleStatusWebhook, (b) => (b.validationResults.facialMatch = 'PASSED')),
    mutate(sampleStatusWebhook, (b) => (b.validationResults.facialMatch = 120)),
    mutate(sampleStatusWebhook, (b) => (b.confidenceScore = -1)),
  ],
  'webhook-combined': [sampleCombinedWebhook, sampleV1Webhook, sampleStatusWebhook],
  'session-details': [
    sampleSessionDetails,
    { id: 's', shortKey: 'K', state: 'IN_PROGRESS', startedAt: sampleV1Webhook.startedAt, detailsURL: 'https://a/b' },
    mutate(sampleSessionDetails, (b) => (b.state = 'DONE')),
    mutate(sampleSessionDetails, (b) => delete b.status),
  ],
  'finish-session-request': [{ sessionId: 'sess_1' }, { sessionId: '' }, { id: 'sess_1' }, { sessionId: 1 }],
  'api-error': [
    sampleApiErrorBody,
    { error: { code: 'SOMETHING_NEW', message: 'later code' } },
    { error: { code: '', message: 'x' } },
    { error: 'flat' },
  ],
};

describe('JSON Schemas generated from the zod schemas', () => {
  it('publishes every wire format, and one for any webhook body', () => {
    expect(Object.keys(schemas).sort()).toEqual([...CONTRACT_SCHEMAS.map((entry) => entry.file), 'webhook'].sort());
  });

  it('are JSON Schema 2020-12 documents that a strict validator compiles', () => {
    for (const [name, schema] of Object.entries(schemas)) {
      expect(schema.$schema, name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(() => compile(schema), name).not.toThrow();
    }
  });

  it('accept and reject exactly what the zod schemas do', () => {
    for (const entry of CONTRACT_SCHEMAS) {
      const validate = compile(schemas[entry.file] as object);
      for (const [index, body] of (cases[entry.file] ?? []).entries()) {
        expect(validate(body), `${entry.file} case ${index}: ${JSON.stringify(validate.errors)}`).toBe(
          entry.schema.safeParse(body).success,
        );
      }
    }
  });

  it('carry their examples, and each example is valid', () => {
    for (const entry of CONTRACT_SCHEMAS) {
      const schema = schemas[entry.file] as { examples: unknown[] };
      expect(schema.examples.length, entry.file).toBeGreaterThan(0);
      const validate = compile(schema);
      for (const example of schema.examples) expect(validate(example), entry.file).toBe(true);
    }
  });

  it('describe every property of every body with the specification meaning', () => {
    const undescribed: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (typeof node !== 'object' || node === null) return;
      const properties = (node as { properties?: Record<string, unknown> }).properties;
      for (const [name, property] of Object.entries(properties ?? {})) {
        if (typeof (property as { description?: unknown }).description !== 'string')
          undescribed.push(`${path}.${name}`);
        walk(property, `${path}.${name}`);
      }
    };
    for (const entry of CONTRACT_SCHEMAS) walk(schemas[entry.file], entry.file);
    expect(undescribed).toEqual([]);
  });

  it('`webhook` accepts each shape and refuses a body that is none of them', () => {
    const validate = compile(schemas.webhook as object);
    for (const body of [sampleV1Webhook, sampleStatusWebhook, sampleCombinedWebhook]) expect(validate(body)).toBe(true);
    expect(validate({ id: 'sess_only' })).toBe(false);
    expect(validate(mutate(sampleStatusWebhook, (b) => (b.status = 'approved')))).toBe(false);
  });
});
