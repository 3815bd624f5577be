import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUNDLE_CEILINGS, bundleReport } from './support/bundle-size.js';

describe('core bundle from the published builds (esbuild, minified + gzip, platform neutral)', () => {
  it('importing only verifyAuthorization stays within 1 KB', async () => {
    const { gzipBytes } = await bundleReport(['verifyAuthorization']);
    expect(BUNDLE_CEILINGS.verifyAuthorization).toBe(1024); // the budget, not ours to raise
    expect(gzipBytes).toBeLessThanOrEqual(BUNDLE_CEILINGS.verifyAuthorization);
  });

  it('createWebhookReceiver with parsing stays under its ceiling', async () => {
    const { gzipBytes } = await bundleReport(['createWebhookReceiver']);
    // See BUNDLE_CEILINGS for what the ceiling is made of and when it may move.
    expect(gzipBytes).toBeLessThanOrEqual(BUNDLE_CEILINGS.createWebhookReceiver);
  });

  it('leaves the inbox out: its runner comes with the object defineInbox() (or an adapter) returns', async () => {
    const { inputs } = await bundleReport(['createWebhookReceiver'], { from: 'source' });
    expect(inputs.filter((input) => input.includes('/src/inbox/'))).toEqual([]);
  });

  it('uses Web-standard APIs only: no Buffer, no process, no node:* in any file the core pulls in', async () => {
    const { inputs } = await bundleReport(['createWebhookReceiver', 'parseWebhook', 'memoryIdempotencyStore'], {
      from: 'source',
    });
    const ours = inputs.filter((input) => input.includes('packages/') && !input.includes('node_modules'));
    expect(ours.length).toBeGreaterThan(5);
    for (const input of ours) {
      const source = readFileSync(input, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
      expect(source, input).not.toMatch(/\bBuffer\b|\bprocess\.|from 'node:/);
    }
  });
});
