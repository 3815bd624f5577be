import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KycClient } from '@kyc/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SANDBOX_API, startTelemetry } from '../src/index.js';
import { AUTH_KEY, api, eventually, PASSWORD, startTestReceiver, startTestSandbox, USERNAME } from './helpers.js';

const DOCS = new URL('../../../docs/observability/', import.meta.url);
const ALERTS = new URL('alerts.yml', DOCS);
const ALERT_TESTS = new URL('alerts.test.yml', DOCS);
const DASHBOARD = new URL('grafana-dashboard.json', DOCS);

interface Rule {
  readonly alert?: string;
  readonly expr?: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
interface Panel {
  readonly title: string;
  readonly datasource?: { uid?: string };
  readonly targets?: readonly { expr: string }[];
}

/** Every series name a scrape of a sandbox that delivered (and retried) a webhook exposes. */
let exposed: Set<string>;

beforeAll(async () => {
  const telemetry = startTelemetry({ env: {} });
  if (telemetry === undefined) throw new Error('telemetry should start');
  const receiver = await startTestReceiver({ failFirst: true });
  const sandbox = await startTestSandbox({ ca: receiver.certificate.cert, telemetry });
  try {
    await api(sandbox.url, 'PUT', SANDBOX_API.settings, { body: { webhookUrl: receiver.url, authKey: AUTH_KEY } });
    const created = await api(sandbox.url, 'POST', SANDBOX_API.sessions, { body: {} });
    const id = (created.json as { id: string }).id;
    await new KycClient({ baseUrl: sandbox.url, username: USERNAME, password: PASSWORD, maxRetries: 0 }).finishSession(
      id,
    );
    await eventually(() => (receiver.events.some((e) => e.sessionId === id) ? true : undefined));
    await eventually(async () =>
      (await (await fetch(`${sandbox.url}/metrics`)).text()).includes('kyc_webhook_delivery_lag_count')
        ? true
        : undefined,
    );
    const scrape = await (await fetch(`${sandbox.url}/metrics`)).text();
    exposed = new Set(
      scrape
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => line.split(/[{ ]/)[0] ?? ''),
    );
  } finally {
    await sandbox.close();
    await receiver.close();
    await telemetry.shutdown();
  }
});

/** The metric names a PromQL expression reads. */
const metricsIn = (expr: string) => [...expr.matchAll(/\b(kyc_[a-z_]+|http_server_[a-z_]+)\b/g)].map((m) => m[1] ?? '');

function promtool(...args: string[]) {
  const result = spawnSync('promtool', args, { encoding: 'utf8' });
  expect(result.error, 'promtool (Debian package prometheus) must be installed').toBeUndefined();
  return result;
}

describe('docs/observability/alerts.yml', () => {
  const rules = (parse(readFileSync(ALERTS, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

  it('has the failure-rate, queue-age, stalled-delivery and store alerts, each complete', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'KycWebhookAttemptFailureRateHigh',
      'KycWebhookDeliveriesFailing',
      'KycWebhookQueueBehind',
      'KycWebhookNoDeliveriesWhileDue',
      'KycWebhookStoreCannotWrite',
    ]);
    for (const rule of rules) {
      expect(rule.for).toMatch(/^\d+m$/);
      expect(['warning', 'critical']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.runbook).toBe('docs/observability.md#runbook');
    }
  });

  it('reads only metrics the sandbox really exposes', () => {
    for (const rule of rules) {
      const names = metricsIn(rule.expr ?? '');
      expect(names.length, rule.alert).toBeGreaterThan(0);
      for (const name of names) expect(exposed, `${rule.alert} reads ${name}`).toContain(name);
    }
  });

  it('passes promtool check rules and its unit tests (promtool test rules)', () => {
    const check = promtool('check', 'rules', ALERTS.pathname);
    expect(check.stdout + check.stderr).toMatch(/SUCCESS: 5 rules found/);
    expect(check.status).toBe(0);
    const unit = promtool('test', 'rules', ALERT_TESTS.pathname);
    expect(unit.stdout + unit.stderr).toMatch(/SUCCESS/);
    expect(unit.status).toBe(0);
  });
});

describe('docs/observability/grafana-dashboard.json', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    uid: string;
    __inputs: { name: string }[];
    panels: Panel[];
  };
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

  it('is importable: one Prometheus input every panel uses', () => {
    expect(dashboard.uid).toBe('kyc-webhooks');
    expect(dashboard.__inputs.map((i) => i.name)).toEqual(['DS_PROMETHEUS']);
    for (const panel of dashboard.panels) expect(panel.datasource?.uid).toBe(`\${DS_PROMETHEUS}`);
    expect(exprs.length).toBeGreaterThanOrEqual(10);
  });

  it('queries only metrics the sandbox really exposes, in PromQL that Prometheus parses', () => {
    for (const { panel, expr } of exprs) {
      for (const name of metricsIn(expr)) expect(exposed, `${panel} reads ${name}`).toContain(name);
    }
    // promtool parses each query as a recording rule ($__rate_interval is Grafana's, set to 5m).
    const dir = mkdtempSync(join(tmpdir(), 'kyc-dashboard-'));
    try {
      const file = join(dir, 'dashboard-queries.yml');
      const recorded = exprs.map(({ expr }, i) => ({
        record: `dashboard:query_${i}`,
        expr: expr.replaceAll('$__rate_interval', '5m'),
      }));
      writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules: recorded }] }));
      const check = promtool('check', 'rules', file);
      expect(check.stdout + check.stderr).toMatch(new RegExp(`SUCCESS: ${recorded.length} rules found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
