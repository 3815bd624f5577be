// Prints the functions with the most self time in a V8 .cpuprofile (from node --cpu-prof), as a
// share of the samples that were not idle.
import { readFileSync } from 'node:fs';

const [file, limit = '25'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const self = new Map();
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const counts = new Map();
for (const sample of profile.samples) counts.set(sample, (counts.get(sample) ?? 0) + 1);
const idle = new Set(
  profile.nodes.filter((n) => ['(idle)', '(program)'].includes(n.callFrame.functionName)).map((n) => n.id),
);
const total = profile.samples.filter((id) => !idle.has(id)).length;
for (const [id, count] of counts) {
  if (idle.has(id)) continue;
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const short = url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(/^.*packages\//, '');
  const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + count);
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(limit));
for (const [key, count] of rows) console.log(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${key}`);
