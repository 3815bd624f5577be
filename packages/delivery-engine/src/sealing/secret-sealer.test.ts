import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSealingKeys, saveSealingKeys } from './key-file.js';
import { formatSealingKeys, generateSealingKey, parseSealingKeys } from './sealing-key.js';
import { createSecretSealer, isSealed, keyIdOf } from './secret-sealer.js';

const k1 = { id: 'k1', key: randomBytes(32).toString('base64') };
const k2 = { id: 'k2', key: randomBytes(32) };

describe('createSecretSealer', () => {
  it('seals with the first key, opens with any, and binds a value to where it is stored', () => {
    const old = createSecretSealer([k1]);
    const sealed = old.seal('the-auth-key-0123456789', 'deliveries.auth_key:e1');
    expect(isSealed(sealed)).toBe(true);
    expect(keyIdOf(sealed)).toBe('k1');
    expect(sealed).not.toContain('the-auth-key');
    // Same secret, new IV: two seals differ.
    expect(old.seal('the-auth-key-0123456789', 'deliveries.auth_key:e1')).not.toBe(sealed);
    const both = createSecretSealer([k2, k1]);
    expect(both.sealingKeyId).toBe('k2');
    expect(both.open(sealed, 'deliveries.auth_key:e1')).toBe('the-auth-key-0123456789');
    // Copied into another row, it does not open.
    expect(() => both.open(sealed, 'deliveries.auth_key:e2')).toThrow(
      expect.objectContaining({ code: 'sealing_key_wrong' }),
    );
  });

  it('refuses a key id it lacks, another key under the same id and an altered value, never returning garbage', () => {
    const sealed = createSecretSealer([k1]).seal('x'.repeat(20), 'c');
    expect(() => createSecretSealer([k2]).open(sealed, 'c')).toThrow(
      expect.objectContaining({ code: 'sealing_key_missing', message: expect.stringContaining('"k1"') }),
    );
    const impostor = createSecretSealer([{ id: 'k1', key: randomBytes(32) }]);
    expect(() => impostor.open(sealed, 'c')).toThrow(expect.objectContaining({ code: 'sealing_key_wrong' }));
    const altered = `${sealed.slice(0, -4)}AAAA`;
    expect(() => createSecretSealer([k1]).open(altered, 'c')).toThrow(
      expect.objectContaining({ code: 'sealing_key_wrong' }),
    );
    expect(() => createSecretSealer([k1]).open('plain-value', 'c')).toThrow(
      expect.objectContaining({ code: 'sealing_key_wrong' }),
    );
  });

  it('checks keys with a typed error that never quotes them', () => {
    const short = randomBytes(16).toString('base64');
    for (const keys of [[], [{ id: 'bad id', key: k1.key }], [{ id: 'k', key: short }], [k1, { ...k1 }]]) {
      expect(() => createSecretSealer(keys)).toThrow(expect.objectContaining({ code: 'invalid_option' }));
      try {
        createSecretSealer(keys);
      } catch (error) {
        expect((error as Error).message).not.toContain(short.slice(0, 12));
        expect((error as Error).message).not.toContain(k1.key.slice(0, 12));
      }
    }
  });
});

describe('sealing keys as text and in a key file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kyc-key-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('parses and formats "<id>:<base64>" entries, the first one sealing; errors name the entry, not the key', () => {
    const text = formatSealingKeys([k2, k1]);
    expect(parseSealingKeys(`# comment\n${text}`).map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(parseSealingKeys(text.replace('\n', ', ')).map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(() => parseSealingKeys(`k3${k1.key}`)).toThrow(/entry 1 is not <id>:<base64 key>/);
    expect(generateSealingKey(new Date('2026-11-29T00:00:00Z')).id).toMatch(/^k20261129-[0-9a-f]{4}$/);
  });

  it('makes a missing key file once, mode 0600, and every later load reads the same key', () => {
    const path = join(dir, 'made.key');
    const [first] = loadSealingKeys(path, { create: true });
    const [again] = loadSealingKeys(path, { create: true });
    expect(again).toEqual(first);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(() => loadSealingKeys(join(dir, 'missing.key'))).toThrow(/cannot read it \(ENOENT\)/);
  });

  it('replaces a key file atomically, still 0600', () => {
    const path = join(dir, 'saved.key');
    saveSealingKeys(path, [k2, k1]);
    expect(loadSealingKeys(path).map((k) => k.id)).toEqual(['k2', 'k1']);
    saveSealingKeys(path, [k2]);
    expect(loadSealingKeys(path).map((k) => k.id)).toEqual(['k2']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toMatch(/^# Sealing keys/);
  });
});
