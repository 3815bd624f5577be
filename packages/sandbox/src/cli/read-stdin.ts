/** The first line of stdin (bounded to 4 KiB), for passwords piped into `user add`. */
export async function readFirstLine(stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += chunk.toString();
    if (text.includes('\n') || text.length > 4096) break;
  }
  return (text.split(/\r?\n/)[0] ?? '').slice(0, 4096);
}

/**
 * Reads one line from a terminal without echoing it, for a password typed at `user add`.
 * Enter ends it, Backspace deletes, Ctrl-C cancels (`undefined`); at most 4 KiB is kept.
 * `prompt` runs once echo is off: a prompt shown earlier would let keys typed at once be echoed.
 */
export function readHiddenLine(
  prompt: () => void,
  stdin: NodeJS.ReadStream = process.stdin,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const finish = (value: string | undefined) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish(text);
        if (char === '\u0003') return finish(undefined);
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1);
        else if (text.length < 4096) text += char;
      }
    };
    stdin.setRawMode(true);
    stdin.on('data', onData);
    stdin.resume();
    prompt();
  });
}
