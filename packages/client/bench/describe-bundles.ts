import { DEPENDENCY_FLOOR_ENTRY, measureBundle } from './bundle-size.js';

/** Issue 15: the client's own code adds at most this much gzip to ky + zod/mini. */
const OWN_CODE_TARGET_GZIP_BYTES = 3 * 1024;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * The bench's bundle lines: the client's bundle, the floor of its two dependencies and what the
 * client's own code adds to it (against issue 15's target), the bytes per package, and the
 * bundle a user of Onfido's official SDK (`@onfido/api`) ships instead, all measured now.
 */
export async function describeBundles(): Promise<string[]> {
  const [client, floor] = await Promise.all([measureBundle(), measureBundle(DEPENDENCY_FLOOR_ENTRY)]);
  const own = client.gzipBytes - floor.gzipBytes;
  const lines = [
    'bundle (esbuild, ESM, minified; gzip -9)',
    `  @kyc/client, import { KycClient }, platform neutral: ${kb(client.minifiedBytes)} minified, ${kb(client.gzipBytes)} gzip`,
    `  ky + zod/mini schemas alone (the floor):             ${kb(floor.gzipBytes)} gzip`,
    `  the client's own code adds ${kb(own)} gzip to the floor (target ≤ ${kb(OWN_CODE_TARGET_GZIP_BYTES)}: ${(own / OWN_CODE_TARGET_GZIP_BYTES).toFixed(2)}× the target)`,
  ];
  for (const [name, bytes] of Object.entries(client.bytesByPackage).sort((a, b) => b[1] - a[1])) {
    if (bytes > 0) lines.push(`    ${name.padEnd(16)} ${kb(bytes)} minified`);
  }
  const vendor = "export { Configuration, DefaultApi } from '@onfido/api';";
  const neutral = await measureBundle(vendor).then(
    () => 'builds',
    () => 'does not build (it imports fs, url, crypto and form-data)',
  );
  const onfido = await measureBundle(vendor, undefined, 'node');
  lines.push(
    `  @onfido/api, import { DefaultApi, Configuration }: platform neutral ${neutral}; platform node: ${kb(onfido.minifiedBytes)} minified, ${kb(onfido.gzipBytes)} gzip = ${(onfido.gzipBytes / client.gzipBytes).toFixed(1)}× the client`,
  );
  return lines;
}
