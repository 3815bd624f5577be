/**
 * Preloaded (`node --import`) into a bench server by `profile-http.ts --count`: counts what the
 * requests after the warm-up create — promises and other async resources (timers, ticks,
 * immediates) by type, event listeners added, bytes allocated on the JavaScript heap (from the
 * garbage collector's before/after figures), and objects allocated (sampled at every 8 bytes:
 * a near-exact count). The hooks slow the server down: read counts from this mode, times from
 * the others.
 */
import { createHook } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { Session } from 'node:inspector/promises';
import { GCProfiler, getHeapStatistics } from 'node:v8';

export interface Counters {
  mark(): Promise<void>;
  report(requests: number): Promise<Record<string, number>>;
}

let counting = false;
const resources = new Map<string, number>();
const listeners = new Map<string, number>();
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

createHook({
  init(_id, type) {
    if (counting) bump(resources, type);
  },
}).enable();

const proto = EventEmitter.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const method of ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']) {
  const original = proto[method] as (...args: unknown[]) => unknown;
  proto[method] = function (this: unknown, ...args: unknown[]) {
    if (counting) bump(listeners, `${method} ${String(args[0])}`);
    return original.apply(this, args);
  };
}

interface SamplingNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children: readonly SamplingNode[];
}

interface SampledProfile {
  readonly head: SamplingNode;
  readonly samples: readonly { readonly nodeId: number; readonly size: number }[];
}

/** The functions that allocated the most bytes (self), with their objects and bytes. */
function topSites(profile: SampledProfile): [string, { objects: number; bytes: number }][] {
  const names = new Map<number, string>();
  const walk = (node: SamplingNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    names.set(node.id, `${functionName || '(anonymous)'} ${url.replace(/^.*\//, '')}:${lineNumber + 1}`);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const sites = new Map<string, { objects: number; bytes: number }>();
  for (const sample of profile.samples) {
    const name = names.get(sample.nodeId) ?? '?';
    const site = sites.get(name) ?? { objects: 0, bytes: 0 };
    site.objects += 1;
    site.bytes += sample.size;
    sites.set(name, site);
  }
  return [...sites].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 20);
}

const session = new Session();
session.connect();
let gc: GCProfiler | undefined;
let usedAtMark = 0;

const counters: Counters = {
  async mark() {
    resources.clear();
    listeners.clear();
    await session.post('HeapProfiler.enable');
    // Collected objects count too: almost everything a request allocates is garbage by the end.
    // KYC_BENCH_SURVIVORS=1 counts only what no scavenge collected: what was promoted to the old
    // generation (and, until a full collection, stays there as garbage).
    const all = process.env.KYC_BENCH_SURVIVORS !== '1';
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 8,
      includeObjectsCollectedByMajorGC: all,
      includeObjectsCollectedByMinorGC: all,
    });
    gc = new GCProfiler();
    gc.start();
    usedAtMark = getHeapStatistics().used_heap_size;
    counting = true;
  },
  async report(requests) {
    counting = false;
    const usedAtEnd = getHeapStatistics().used_heap_size;
    const stats = gc?.stop()?.statistics ?? [];
    // Allocated = what each collection found minus what the one before left, plus the growth since the last.
    let allocated = 0;
    let previous = usedAtMark;
    for (const { beforeGC, afterGC } of stats) {
      allocated += beforeGC.heapStatistics.usedHeapSize - previous;
      previous = afterGC.heapStatistics.usedHeapSize;
    }
    allocated += usedAtEnd - previous;
    // The protocol's types leave out `samples`, which V8 fills in: one per sampled allocation.
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: SampledProfile };
    const per = (value: number) => Math.round((value / requests) * 100) / 100;
    const result: Record<string, number> = {
      'heap bytes allocated': per(allocated),
      'objects allocated (sampled at 8 B)': per(profile.samples.length),
    };
    for (const [site, { objects, bytes }] of topSites(profile)) {
      result[`allocated at ${site}: objects`] = per(objects);
      result[`allocated at ${site}: bytes`] = per(bytes);
    }
    for (const [type, count] of [...resources].sort()) result[`async resource ${type}`] = per(count);
    for (const [name, count] of [...listeners].sort()) result[`listener ${name}`] = per(count);
    return result;
  },
};
(globalThis as { __kycBenchCounters?: Counters }).__kycBenchCounters = counters;
