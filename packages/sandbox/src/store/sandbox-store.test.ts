import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOutcome } from '../domain/outcome.js';
import { SandboxStore } from './sandbox-store.js';

const dirs: string[] = [];
function openStore() {
  const dir = mkdtempSync(join(tmpdir(), 'kyc-sandbox-store-'));
  dirs.push(dir);
  const secrets = { keyFile: join(dir, 'secrets.key') };
  return { store: new SandboxStore(join(dir, 'sandbox.db'), secrets), path: join(dir, 'sandbox.db'), secrets };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('SandboxStore', () => {
  it('finishes a session and writes its outbox row once, atomically', () => {
    const { store } = openStore();
    const companyId = store.ensureCompany('Acme', 1);
    store.updateWebhook(companyId, 'https://acme.example/hook', 'k'.repeat(20), 1);
    const session = store.createSession(companyId, resolveOutcome({}), 1000);
    const first = store.finishSession(companyId, session.id, 2000, () => '{"id":"x"}');
    expect(first?.finished).toBe(true);
    expect(first?.session).toMatchObject({ state: 'FINISHED', endedAt: 2000 });
    const second = store.finishSession(companyId, session.id, 3000, () => '{"id":"y"}');
    expect(second?.finished).toBe(false);
    expect(second?.session.endedAt).toBe(2000);
    expect(store.outbox.unrelayed()).toHaveLength(1);
    expect(store.outbox.forSession(session.id)).toMatchObject({ url: 'https://acme.example/hook', body: '{"id":"x"}' });
  });

  it('rolls the session back when the outbox write fails', () => {
    const { store } = openStore();
    const companyId = store.ensureCompany('Acme', 1);
    const session = store.createSession(companyId, resolveOutcome({}), 1000);
    expect(() =>
      store.finishSession(companyId, session.id, 2000, () => {
        throw new Error('body could not be built');
      }),
    ).toThrow('body could not be built');
    expect(store.getSession(companyId, session.id)?.state).toBe('IN_PROGRESS');
    expect(store.outbox.unrelayed()).toEqual([]);
  });

  it('keeps companies apart: another company cannot read or finish a session', () => {
    const { store } = openStore();
    const a = store.ensureCompany('A', 1);
    const b = store.ensureCompany('B', 1);
    const session = store.createSession(a, resolveOutcome({}), 1000);
    expect(store.getSession(b, session.id)).toBeUndefined();
    expect(store.finishSession(b, session.id, 2000, () => '{}')).toBeUndefined();
  });

  it('survives a reopen: a finished session and its unrelayed event are still there', () => {
    const { store, path, secrets } = openStore();
    const companyId = store.ensureCompany('Acme', 1);
    store.updateWebhook(companyId, 'https://acme.example/hook', 'k'.repeat(20), 1);
    const session = store.createSession(companyId, resolveOutcome({}), 1000);
    store.finishSession(companyId, session.id, 2000, () => '{}');
    store.close();
    const reopened = new SandboxStore(path, secrets);
    expect(reopened.getCompany(companyId)?.authKey).toBe('k'.repeat(20));
    expect(reopened.getSession(companyId, session.id)?.state).toBe('FINISHED');
    expect(reopened.outbox.unrelayed().map((row) => row.sessionId)).toEqual([session.id]);
    reopened.close();
  });

  it('stores only a hash of the login token and expires logins', () => {
    const { store } = openStore();
    const companyId = store.ensureCompany('Acme', 1);
    const user = store.addUser('alice', 'hash', 'Acme', 1);
    expect(user.companyId).toBe(companyId);
    expect(() => store.addUser('alice', 'hash', 'Acme', 1)).toThrow(/already exists/);
    const login = store.logins.create(user.id, 1000, 500);
    expect(store.logins.find(login.token, 1200)).toEqual({ userId: user.id, csrfToken: login.csrfToken });
    expect(store.logins.find(login.token, 1500)).toBeUndefined();
    expect(store.logins.find('not-a-token', 1200)).toBeUndefined();
  });
});
