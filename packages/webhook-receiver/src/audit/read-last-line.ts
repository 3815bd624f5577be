import type { FileHandle } from 'node:fs/promises';

const CHUNK = 64 * 1024;

/**
 * The last whole line of a file (without its newline), the bytes up to and including its
 * newline (`wholeBytes`: past it is a line a crash left half-written), and the file's size.
 * Reads backwards from the end, only as far as the last line reaches.
 */
export async function readLastLine(
  handle: FileHandle,
): Promise<{ line: string | undefined; wholeBytes: number; size: number }> {
  const { size } = await handle.stat();
  let tail = Buffer.alloc(0);
  let position = size;
  let end = -1; // index in `tail` of the last newline
  while (position > 0) {
    const length = Math.min(CHUNK, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    tail = Buffer.concat([chunk, tail]);
    if (end === -1) end = tail.lastIndexOf(0x0a);
    else end += length;
    if (end === -1) continue;
    const start = tail.lastIndexOf(0x0a, end - 1);
    if (start !== -1 || position === 0) {
      const line = tail.subarray(start + 1, end).toString('utf8');
      return { line, wholeBytes: position + end + 1, size };
    }
  }
  return { line: undefined, wholeBytes: 0, size };
}
