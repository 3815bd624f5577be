import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password.js';

describe('password hashing (scrypt)', () => {
  it('verifies the right password and rejects a wrong one', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(stored).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapler', stored)).resolves.toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same password')).not.toBe(await hashPassword('same password'));
  });

  it('treats a malformed stored hash as a mismatch instead of throwing', async () => {
    const unusable = ['scrypt$3$8$1$c2FsdHNhbHQ=$aGFzaGhhc2g=', `scrypt$${2 ** 30}$8$1$c2FsdHNhbHQ=$aGFzaGhhc2g=`];
    for (const stored of ['', 'plain', 'scrypt$x$y$z$$', 'bcrypt$1$2$3$abc$def', ...unusable]) {
      await expect(verifyPassword('anything', stored)).resolves.toBe(false);
    }
  });

  it('still verifies a hash stored with older parameters', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const hash = scryptSync('old password', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const stored = ['scrypt', 2 ** 14, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
    await expect(verifyPassword('old password', stored)).resolves.toBe(true);
    await expect(verifyPassword('new password', stored)).resolves.toBe(false);
  });
});
