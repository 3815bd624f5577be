import { html } from 'hono/html';
import type { HealthHour } from '../portal/compute-health.js';
import type { Html } from './layout.js';

const WIDTH = 720;
const HEIGHT = 160;
const AXIS = 20;
const DELIVERED = '#1f7a3d';
const FAILED = '#b42318';

/**
 * The last 24 hours of attempts per hour as stacked bars, drawn on the server (no script).
 * Failed bars are hatched as well as red, so the chart does not rely on colour alone; the
 * table beside it holds the same numbers for screen readers.
 */
export function healthChart(hours: readonly HealthHour[]): Html {
  const max = Math.max(1, ...hours.map((h) => h.delivered + h.failed));
  const slot = WIDTH / hours.length;
  const bar = Math.max(2, slot - 4);
  const scale = (n: number) => (n / max) * (HEIGHT - AXIS);
  return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="chart-title chart-desc">
<title id="chart-title">Attempts per hour, last 24 hours</title>
<desc id="chart-desc">Stacked bars: delivered attempts in green, failed attempts in hatched red. The table below lists the same numbers.</desc>
<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
<rect width="6" height="6" fill="${FAILED}"/><line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2"/></pattern></defs>
${hours.map((h, i) => {
  const x = i * slot + 2;
  const ok = scale(h.delivered);
  const bad = scale(h.failed);
  const base = HEIGHT - AXIS;
  return html`<rect x="${x}" y="${base - ok}" width="${bar}" height="${ok}" fill="${DELIVERED}"/><rect x="${x}" y="${base - ok - bad}" width="${bar}" height="${bad}" fill="url(#hatch)"/>${
    i % 3 === 0 ? html`<text x="${x}" y="${HEIGHT - 6}">${h.start.slice(11, 16)}</text>` : ''
  }`;
})}
<line x1="0" y1="${HEIGHT - AXIS}" x2="${WIDTH}" y2="${HEIGHT - AXIS}" stroke="#889"/>
</svg>`;
}
