import type { AttemptEvent } from '@kyc/delivery-engine';

/** Counts an engine's delivered events: `finished` resolves at the `events`-th; `onDelivered` sees each count. */
export function deliveryCounter(events: number, onDelivered?: (count: number) => void) {
  let delivered = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  return {
    finished,
    delivered: () => delivered,
    onAttempt: (event: AttemptEvent) => {
      if (event.state !== 'delivered') return;
      delivered++;
      onDelivered?.(delivered);
      if (delivered === events) done();
    },
  };
}
