import { describe, expect, it } from 'vitest';
import { deliveryUrlOf, isListenerHost, isListenerUrl, listenerUrlFor } from './listener-url.js';

describe('the listener URLs', () => {
  it('give each company its own host (its own origin for per-endpoint concurrency)', () => {
    expect(new URL(listenerUrlFor(1)).origin).not.toBe(new URL(listenerUrlFor(2)).origin);
    expect(isListenerUrl(listenerUrlFor(7))).toBe(true);
    expect(isListenerHost(new URL(listenerUrlFor(7)).hostname)).toBe(true);
    expect(isListenerUrl('https://hooks.example.com/kyc')).toBe(false);
    expect(isListenerUrl('https://kyc-sandbox-listen.invalid.example.com/')).toBe(false);
    expect(isListenerUrl(null)).toBe(false);
    expect(isListenerUrl('not a url')).toBe(false);
  });

  it('send an event to the saved URL, else to the listener of a company that used one, else nowhere', () => {
    const saved = 'https://hooks.example.com/kyc';
    expect(deliveryUrlOf({ id: 3, webhookUrl: saved, listenedAt: 1 })).toBe(saved);
    expect(deliveryUrlOf({ id: 3, webhookUrl: undefined, listenedAt: 1 })).toBe(listenerUrlFor(3));
    expect(deliveryUrlOf({ id: 3, webhookUrl: undefined, listenedAt: undefined })).toBeUndefined();
  });
});
