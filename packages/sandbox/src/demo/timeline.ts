/** A readable, time-stamped log of what the demo saw, printed as it happens. */
export interface Timeline {
  add(actor: 'demo' | 'sandbox' | 'client' | 'receiver' | 'engine' | 'trace', text: string): void;
  readonly lines: readonly string[];
}

export function createTimeline(write: (line: string) => void): Timeline {
  const started = performance.now();
  const lines: string[] = [];
  return {
    lines,
    add(actor, text) {
      const seconds = ((performance.now() - started) / 1000).toFixed(2).padStart(6);
      const line = `+${seconds}s  ${actor.padEnd(8)}  ${text}`;
      lines.push(line);
      write(line);
    },
  };
}
