import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADERS } from '@kyc/contracts';
import { generateSealingKey, loadSealingKeys } from '@kyc/delivery-engine';
import { createTestCertificate, findSecrets } from '@kyc/test-support';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_SECRET_API } from '../src/api/signing-secret-routes.js';
import { PORTAL_API, SANDBOX_API, SandboxError, startSandbox } from '../src/index.js';
import { listen } from '../src/server/listen.js';
import { spawnCli } from './cli-process.js';
import { basicAuth, eventually, PASSWORD, tempDir, USERNAME } from './helpers.js';

// The sandbox keeps companies' Auth Keys and signing secrets sealed with its secrets key
// (KYC_SECRETS_KEY or <data folder>.key): after a run no file, WAL, backup or log holds one, and
// a data folder of the release before is sealed when it starts.

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'release-before-v5');
let certificate: Awaited<ReturnType<typeof createTestCertificate>>;
/** Keys the test receiver accepts and secrets it verifies; `failing` answers 503 to everything, `hanging` nothing. */
const accepted = { keys: [] as string[], secrets: [] as string[], failing: false, hanging: false };
const seen: { headers: Headers; body: string; status: number }[] = [];
let endpoint: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  certificate = await createTestCertificate(['127.0.0.1']);
  endpoint = await listen(
    async (request) => {
      const body = await request.clone().text();
      if (accepted.hanging) {
        seen.push({ headers: request.headers, body, status: 0 });
        return new Promise<Response>(() => undefined);
      }
      if (accepted.failing) {
        seen.push({ headers: request.headers, body, status: 503 });
        return new Response('busy', { status: 503 });
      }
      const receiver = createWebhookReceiver({
        authKeys: accepted.keys,
        ...(accepted.secrets.length > 0 && { signingSecrets: accepted.secrets }),
        logger: {},
        onEvent: () => undefined,
      });
      const response = await receiver.handle(request);
      seen.push({ headers: request.headers, body, status: response.status });
      return response;
    },
    { port: 0, host: '127.0.0.1', tls: certificate },
  );
});
afterAll(() => endpoint?.close());

async function start(dataDir: string, logs: string[] = [], extra: { secretsKey?: string } = {}) {
  const log = (level: string) => (message: string, fields?: unknown) =>
    logs.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return startSandbox({
    dataDir,
    timeScale: 600,
    allowLoopbackTargets: true,
    trustedCa: [certificate.cert],
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    ...extra,
  });
}

function client(url: string) {
  return async (method: string, path: string, body: unknown = {}) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: basicAuth(USERNAME, PASSWORD),
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown>;
  };
}

const filesOf = (dataDir: string) =>
  ['sandbox.db', 'deliveries.db'].flatMap((name) =>
    ['', '-wal', '-shm'].map((suffix) => join(dataDir, `${name}${suffix}`)),
  );

function backupsOf(dataDir: string): string[] {
  return ['sandbox.db', 'deliveries.db'].map((name) => {
    const backup = join(dataDir, `backup-${name}`);
    const reader = new Database(join(dataDir, name), { readonly: true });
    reader.exec(`VACUUM INTO '${backup}'`);
    reader.close();
    return backup;
  });
}

describe('the sandbox keeps no secret in clear', () => {
  it('after delivered, failed, redelivered and pending events, a key change and a secret rotation', async () => {
    const dir = tempDir();
    const logs: string[] = [];
    const secrets = {
      authKey1: randomBytes(24).toString('base64url'),
      authKey2: randomBytes(24).toString('base64url'),
    } as Record<string, string>;
    const sandbox = await start(dir.path, logs);
    try {
      await sandbox.sandbox.addUser(USERNAME, PASSWORD);
      const call = client(sandbox.url);
      await call('PUT', SANDBOX_API.settings, { webhookUrl: `${endpoint.url}/hook`, authKey: secrets.authKey1 });
      secrets.signing1 = String(((await call('POST', SIGNING_SECRET_API.secret)).secret as { secret: string }).secret);
      accepted.keys = [String(secrets.authKey1)];
      accepted.secrets = [String(secrets.signing1)];
      const finish = async () => {
        const session = await call('POST', SANDBOX_API.sessions, { status: 'APPROVED', shape: 'status' });
        await call('POST', '/api/v1/kyc/session/finish', { sessionId: session.id });
        return String(session.id);
      };
      const stateOf = async (sessionId: string) =>
        (await call('GET', `${SANDBOX_API.sessions}/${sessionId}/delivery`)) as { state?: string; eventId?: string };
      const delivered = await finish();
      const first = await eventually(async () =>
        (await stateOf(delivered)).state === 'delivered' ? stateOf(delivered) : undefined,
      );
      accepted.failing = true;
      const failed = await finish();
      await eventually(async () => ((await stateOf(failed)).state === 'failed' ? true : undefined));
      accepted.failing = false;
      await call('POST', `${PORTAL_API.deliveries}/${first.eventId}/redeliver`);
      // The company rotates both: its receiver takes the new ones.
      const rotated = await call('POST', SIGNING_SECRET_API.rotate, { overlapSeconds: 0 });
      secrets.signing2 = String((rotated.secret as { secret: string }).secret);
      await call('PUT', SANDBOX_API.settings, { webhookUrl: `${endpoint.url}/hook`, authKey: secrets.authKey2 });
      accepted.keys = [String(secrets.authKey2)];
      accepted.secrets = [String(secrets.signing2)];
      expect(await call('POST', PORTAL_API.testEvents, { shape: 'v1' })).toMatchObject({ attempt: { status: 200 } });
      accepted.failing = true;
      await finish();
      await eventually(() => (seen.at(-1)?.status === 503 ? true : undefined));
      const backups = backupsOf(dir.path);
      expect(
        findSecrets({ files: [...filesOf(dir.path), ...backups], texts: { logs: logs.join('\n') } }, secrets),
      ).toEqual([]);
    } finally {
      accepted.failing = false;
      await sandbox.close();
    }
    expect(findSecrets({ files: filesOf(dir.path) }, secrets)).toEqual([]);
    // Every delivery carried the key of its moment: the redelivery the rotated one.
    expect(seen.some((r) => r.headers.get(HEADERS.authorization) === `Bearer ${secrets.authKey2}`)).toBe(true);
    // The key is beside the folder, not in it, and readable by its owner only.
    expect(statSync(`${dir.path}.key`).mode & 0o777).toBe(0o600);
    dir.remove();
  });

  it('refuses to start with another secrets key, or without its key file, naming the key id it needs', async () => {
    const dir = tempDir();
    const key = generateSealingKey();
    const asText = (k: { id: string; key: string | Uint8Array }) => `${k.id}:${String(k.key)}`;
    const first = await start(dir.path, [], { secretsKey: asText(key) });
    await first.sandbox.addUser(USERNAME, PASSWORD);
    await client(first.url)('PUT', SANDBOX_API.settings, {
      webhookUrl: `${endpoint.url}/hook`,
      authKey: randomBytes(24).toString('base64url'),
    });
    await first.close();
    const refused = (secretsKey?: string) =>
      start(dir.path, [], secretsKey === undefined ? {} : { secretsKey }).then(
        () => undefined,
        (error: unknown) => error as SandboxError,
      );
    const other = await refused(asText(generateSealingKey()));
    expect(other).toBeInstanceOf(SandboxError);
    expect(other).toMatchObject({ code: 'secrets_key', message: expect.stringContaining(`"${key.id}"`) });
    const impostor = await refused(asText({ id: key.id, key: randomBytes(32).toString('base64') }));
    expect(impostor).toMatchObject({ code: 'secrets_key', message: expect.stringContaining('does not open') });
    const noFile = await refused();
    expect(noFile).toMatchObject({ code: 'secrets_key', message: expect.stringContaining(`${dir.path}.key`) });
    dir.remove();
  });
});

describe('kyc-sandbox secrets-key rotate', () => {
  it('seals everything again under a new key while the sandbox is stopped; a backlog is then delivered', async () => {
    const dir = tempDir();
    const authKey = randomBytes(24).toString('base64url');
    accepted.keys = [authKey];
    accepted.secrets = [];
    // The endpoint does not answer: the attempts are in flight when the sandbox stops, and given back unrecorded.
    accepted.hanging = true;
    let sandbox = await start(dir.path);
    await sandbox.sandbox.addUser(USERNAME, PASSWORD);
    let call = client(sandbox.url);
    await call('PUT', SANDBOX_API.settings, { webhookUrl: `${endpoint.url}/hook`, authKey });
    const sessions: string[] = [];
    for (let i = 0; i < 5; i++) {
      const session = await call('POST', SANDBOX_API.sessions, { status: 'APPROVED', shape: 'status' });
      await call('POST', '/api/v1/kyc/session/finish', { sessionId: session.id });
      sessions.push(String(session.id));
    }
    await eventually(() => (seen.filter((r) => r.status === 0).length >= 4 ? true : undefined));
    const [oldKey] = loadSealingKeys(`${dir.path}.key`);
    // Refused while the sandbox runs: the engine's file is its to write.
    const busy = await spawnCli(['secrets-key', 'rotate', '--data-dir', dir.path], {
      env: { KYC_SECRETS_KEY: '' },
    }).result(60_000);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/stop it, then rotate/);
    expect(loadSealingKeys(`${dir.path}.key`)).toEqual([oldKey]);
    await sandbox.close();

    const rotated = await spawnCli(['secrets-key', 'rotate', '--data-dir', dir.path], {
      env: { KYC_SECRETS_KEY: '' },
    }).result(60_000);
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(new RegExp(`"${oldKey?.id}" retired`));
    const keys = loadSealingKeys(`${dir.path}.key`);
    expect(keys.map((k) => k.id)).not.toContain(oldKey?.id);
    const bytes = Buffer.concat(
      filesOf(dir.path)
        .filter((file) => existsSync(file))
        .map((file) => readFileSync(file)),
    );
    expect(bytes.includes(`kyc-sealed:1:${oldKey?.id}:`)).toBe(false);

    accepted.hanging = false;
    sandbox = await start(dir.path);
    call = client(sandbox.url);
    try {
      for (const sessionId of sessions) {
        await eventually(async () => {
          const view = (await call('GET', `${SANDBOX_API.sessions}/${sessionId}/delivery`)) as { state?: string };
          return view.state === 'delivered' ? true : undefined;
        }, 30_000);
      }
    } finally {
      await sandbox.close();
    }
    dir.remove();
  }, 90_000);
});

describe('a data folder of the release before sealing', () => {
  it('is sealed when the sandbox starts: no clear copy in any file; the saved key and secret still work', async () => {
    const dir = tempDir();
    for (const name of ['sandbox.db', 'deliveries.db', 'deliveries.db-wal'])
      copyFileSync(join(fixture, name), join(dir.path, name));
    const secrets = JSON.parse(readFileSync(join(fixture, 'secrets.json'), 'utf8')) as Record<string, string>;
    const before = findSecrets({ files: filesOf(dir.path) }, secrets);
    expect(new Set(before.map((f) => f.secret))).toEqual(new Set(['authKeyA', 'authKeyB', 'signingS2']));
    accepted.keys = [String(secrets.authKeyB)];
    accepted.secrets = [String(secrets.signingS2)];
    accepted.failing = false;
    const logs: string[] = [];
    const sandbox = await start(dir.path, logs);
    try {
      const call = client(sandbox.url);
      await call('PUT', SANDBOX_API.settings, { webhookUrl: `${endpoint.url}/hook` });
      const answer = await call('POST', PORTAL_API.testEvents, { shape: 'status' });
      expect(answer).toMatchObject({ attempt: { status: 200 } });
      expect(
        findSecrets(
          { files: [...filesOf(dir.path), ...backupsOf(dir.path)], texts: { logs: logs.join('\n') } },
          secrets,
        ),
      ).toEqual([]);
    } finally {
      await sandbox.close();
    }
    expect(findSecrets({ files: filesOf(dir.path) }, secrets)).toEqual([]);
    unlinkSync(`${dir.path}.key`);
    dir.remove();
  });
});
