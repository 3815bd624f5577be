import { describe, expect, it } from 'vitest';
import { storableOrNull, storableText } from './storable-text.js';

describe('storableText', () => {
  it('replaces U+0000 with ␀ and lone surrogates with U+FFFD, and leaves the rest alone', () => {
    expect(storableText('a\u0000b')).toBe('a\u2400b');
    expect(storableText('x\ud800y\udc00z')).toBe('x\ufffdy\ufffdz');
    expect(storableText('end\ud83d')).toBe('end\ufffd');
    // A whole pair (an emoji) and ordinary text stay as they are.
    expect(storableText('ok 😀 ünïcode')).toBe('ok 😀 ünïcode');
    expect(storableOrNull(undefined)).toBeNull();
    expect(storableOrNull('\u0000')).toBe('\u2400');
  });
});
