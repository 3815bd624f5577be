/**
 * The host faults a chaos engine worker can play on itself, on a signal from the scenario: a wall
 * clock that steps (NTP, a resumed VM), its own process reading or copying the lock file, and a
 * report of its event-loop lag. What cannot be done from outside the process (the owner's own
 * descriptor on its lock file) is done here.
 */
import { cpSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Clock } from '@kyc/delivery-engine';

/**
 * `base`, whose wall time jumps by the next of `stepsMs` at each SIGUSR2. The monotonic reading
 * does not jump: a step of the system clock leaves CLOCK_MONOTONIC alone.
 */
export function steppableClock(base: Clock, stepsMs: readonly number[], say: (line: string) => void): Clock {
  let offset = 0;
  let next = 0;
  process.on('SIGUSR2', () => {
    offset += stepsMs[next++] ?? 0;
    say(`stepped ${offset}`);
  });
  return {
    now: () => base.now() + offset,
    sleep: (ms, signal) => base.sleep(ms, signal),
    ...(base.elapsed !== undefined && { elapsed: () => base.elapsed?.() ?? 0 }),
  };
}

/**
 * On SIGUSR1, blocks the event loop for `ms` inside the signal's callback (a poll-phase callback),
 * as a long garbage collection or a synchronous call does: answers arrive meanwhile, and the next
 * turn runs the timers that came due (an attempt's deadline) before it polls for them.
 */
export function freezeOnSignal(ms: number, say: (line: string) => void): void {
  process.on('SIGUSR1', () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    say('thawed');
  });
}

/** On SIGUSR1, this process reads its store's lock file, or copies the data folder as a naive backup would. */
export function tamperOnSignal(databasePath: string, how: 'read' | 'copy', say: (line: string) => void): void {
  process.on('SIGUSR1', () => {
    if (how === 'read') readFileSync(`${databasePath}-lock`);
    else cpSync(dirname(databasePath), `${dirname(databasePath)}-copy`, { recursive: true });
    say(`tampered ${how}`);
  });
}

/** Starts measuring event-loop delay; the returned function prints `lag <p99 ms> <max ms>`. */
export function lagMonitor(say: (line: string) => void): () => void {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  return () => {
    histogram.disable();
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    say(`lag ${ms(histogram.percentile(99))} ${ms(histogram.max)}`);
  };
}

/**
 * Opens the same file with a second copy of the engine package (another module instance with
 * its own SQLite library, as two `node_modules` trees give) and prints whether it was refused.
 */
export async function tryForeignCopy(modulePath: string, databasePath: string, say: (line: string) => void) {
  const copy = (await import(modulePath)) as {
    sqliteDeliveryStore(options: { path: string }): { acquireOwnership?(): Promise<void>; close(): Promise<void> };
  };
  const store = copy.sqliteDeliveryStore({ path: databasePath });
  try {
    await store.acquireOwnership?.();
    say('second-copy admitted');
  } catch (error) {
    say(`second-copy refused ${String((error as { code?: unknown }).code)}`);
  }
  return store;
}

/**
 * Keeps the event loop busy in a timer callback most of the time, as a loaded engine's is: a
 * pause (SIGSTOP) then lands in the timers phase, and on resume the other timers that came due
 * (an attempt's deadline) run before the poll phase reads the answers that arrived meanwhile.
 */
export function busyTimers(everyMs: number, spinMs: number): void {
  setInterval(() => {
    const until = performance.now() + spinMs;
    while (performance.now() < until) {
      // Spin: the point is a timer callback that holds the thread.
    }
  }, everyMs).unref();
}
