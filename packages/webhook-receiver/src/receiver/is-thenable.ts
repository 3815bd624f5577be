/** Whether a value can be awaited: a handler's or a listener's result may be a promise or not. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
