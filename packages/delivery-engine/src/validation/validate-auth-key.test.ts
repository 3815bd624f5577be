import { AUTH_KEY_MIN_LENGTH } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { generateAuthKey, validateAuthKey } from './validate-auth-key.js';

describe('validateAuthKey', () => {
  it.each([
    'passwordpassword',
    'aaaaaaaaaaaaaaaa',
    '1234567890123456',
    'abcdefghijklmnop',
    'qwertyuiopasdfgh',
    'P@ssw0rd12345678',
    'Summer2024Summer2024',
    '0123456789abcdef',
    'deadbeefdeadbeef',
    'iloveyouiloveyou',
    'letmeinletmeinletmein',
  ])('refuses the predictable key %s without quoting it', (key) => {
    const result = validateAuthKey(key);
    expect(result).toMatchObject({ ok: false, code: 'predictable' });
    if (result.ok) return;
    // No run of 6 characters from the key appears in the message.
    for (let i = 0; i + 6 <= key.length; i += 1) expect(result.message).not.toContain(key.slice(i, i + 6));
  });

  it('refuses keys shorter than AUTH_KEY_MIN_LENGTH, even random-looking ones', () => {
    const short = 'x7Kq9mP2vL4nR8s'.slice(0, AUTH_KEY_MIN_LENGTH - 1);
    const result = validateAuthKey(short);
    expect(result).toMatchObject({ ok: false, code: 'too_short' });
    if (!result.ok) {
      expect(result.message).toContain(String(AUTH_KEY_MIN_LENGTH));
      expect(result.message).not.toContain('x7Kq');
    }
    expect(validateAuthKey('')).toMatchObject({ ok: false, code: 'too_short' });
  });

  it.each([['x7Kq9mP2 vL4nR8sT'], ['x7Kq9mP2vL4nR8sT\n'], ['x7Kq9mP2vL4nR8sTé'], ['x7Kq9mP2\u0000vL4nR8sT']])(
    'refuses keys with characters unsafe in a header (%j)',
    (key) => {
      const result = validateAuthKey(key);
      expect(result).toMatchObject({ ok: false, code: 'invalid_characters' });
      if (!result.ok) expect(result.message).not.toContain('x7Kq');
    },
  );

  it('refuses non-strings and over-long keys', () => {
    for (const value of [
      undefined,
      null,
      1234567890123456,
      { key: 'x7Kq9mP2vL4nR8sT' },
      Buffer.from('x7Kq9mP2vL4nR8sT'),
    ]) {
      expect(validateAuthKey(value)).toMatchObject({ ok: false, code: 'not_a_string' });
    }
    expect(validateAuthKey(generateAuthKey().repeat(3) + generateAuthKey().slice(0, 1))).toMatchObject({
      ok: false,
      code: 'too_long',
    });
  });

  it.each(['x7Kq9mP2vL4nR8sT', 'kyc-webhook-9f3a-Qm2x-T7vz', 'correct-horse-battery-staple-42', 'Zq3!xT9#bL2@wM7$'])(
    'accepts the strong key %s',
    (key) => {
      expect(validateAuthKey(key)).toEqual({ ok: true });
    },
  );

  it('counts user inputs (company name) as known to an attacker', () => {
    const key = 'zorblaxquintessa2931';
    expect(validateAuthKey(key)).toEqual({ ok: true });
    expect(validateAuthKey(key, { userInputs: ['Zorblax Quintessa', 'zorblaxquintessa'] })).toMatchObject({
      ok: false,
      code: 'predictable',
    });
  });
});

describe('generateAuthKey', () => {
  it('returns distinct 43-character base64url keys that always pass validation', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 40; i += 1) {
      const key = generateAuthKey();
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(validateAuthKey(key)).toEqual({ ok: true });
      keys.add(key);
    }
    expect(keys.size).toBe(40);
  });

  it('never starts a key with "-", which command lines read as an option (1 in 64 did)', () => {
    // Before the fix about 100 of these 6 400 keys started with "-".
    const first = new Set(Array.from({ length: 6400 }, () => generateAuthKey()[0]));
    expect(first.has('-')).toBe(false);
    // Every other base64url character still comes first: the draw stays uniform apart from "-".
    expect(first.size).toBe(63);
  });
});
