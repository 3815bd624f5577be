import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundleReport } from './support/bundle-size.js';

describe('core bundle (esbuild, minified + gzip, platform neutral)', () => {
  it('importing only verifyAuthorization stays within 1 KB', async () => {
    const { gzipBytes } = await bundleReport(['verifyAuthorization']);
    expect(gzipBytes).toBeLessThanOrEqual(1024);
  });

  it('createWebhookReceiver with parsing stays under its ceiling', async () => {
    const { gzipBytes } = await bundleReport(['createWebhookReceiver']);
    // Ceiling 36 KB, measured 33.9 KB on 2026-11-22: ~29 KB of it is zod v4 (classic), which
    // @kyc/contracts' normalizeWebhookBody uses to explain rejected fields; the receiver's own
    // code is ~4 KB. Raise it only with a note saying what grew and why.
    expect(gzipBytes).toBeLessThanOrEqual(36 * 1024);
  });

  it('uses Web-standard APIs only: no Buffer, no process, no node:* in any file the core pulls in', async () => {
    const { inputs } = await bundleReport(['createWebhookReceiver', 'parseWebhook', 'memoryIdempotencyStore']);
    const ours = inputs.filter((input) => input.includes('packages/') && !input.includes('node_modules'));
    expect(ours.length).toBeGreaterThan(5);
    for (const input of ours) {
      const source = readFileSync(input, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
      expect(source, input).not.toMatch(/\bBuffer\b|\bprocess\.|from 'node:/);
    }
  });
});
