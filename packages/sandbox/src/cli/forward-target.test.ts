import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { parseForwardTarget } from './forward-target.js';

describe('parseForwardTarget', () => {
  it.each([
    ['http://localhost:3000/webhooks/kyc', 'http://localhost:3000/webhooks/kyc'],
    ['localhost:3000/webhooks/kyc', 'http://localhost:3000/webhooks/kyc'],
    ['3000', 'http://localhost:3000/'],
    ['3000/hook', 'http://localhost:3000/hook'],
    [':8080/kyc', 'http://localhost:8080/kyc'],
    ['https://127.0.0.1:8443/kyc', 'https://127.0.0.1:8443/kyc'],
    ['http://[::1]:3000/kyc', 'http://[::1]:3000/kyc'],
    ['http://api.localhost:3000/kyc', 'http://api.localhost:3000/kyc'],
  ])('takes %s as %s', (input, href) => {
    expect(parseForwardTarget(input).href).toBe(href);
  });

  it.each([
    ['https://example.com/kyc', /must point at this machine .*not example\.com/],
    ['http://10.0.0.5:3000/kyc', /must point at this machine/],
    ['http://[::ffff:10.0.0.5]/kyc', /must point at this machine/],
    ['ftp://localhost/kyc', /http:\/\/ or https:\/\//],
    ['http://user:pw@localhost:3000/', /must not carry a user name or password/],
    ['http://local host:3000', /is not a URL/],
  ])('refuses %s with a usage error', (input, message) => {
    let error: unknown;
    try {
      parseForwardTarget(input);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as CliError).message).toMatch(message);
  });
});
