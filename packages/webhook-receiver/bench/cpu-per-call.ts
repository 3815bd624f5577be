/** CPU nanoseconds per call of `work` after a warm-up (CPU time, not wall time: the machine is shared). */
export async function cpuNsPerCall(work: () => unknown, calls: number): Promise<number> {
  // Only a promise is awaited: awaiting a plain value would add a microtask to every call of
  // the synchronous cases, the JSON.parse baseline included, and flatter every ratio.
  for (let index = 0; index < 5_000; index++) {
    const result = work();
    if (result instanceof Promise) await result;
  }
  const start = process.cpuUsage();
  for (let index = 0; index < calls; index++) {
    const result = work();
    if (result instanceof Promise) await result;
  }
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / calls;
}
