/** Where the sandbox serves the machine-readable contract and the page that renders it. */
export const REFERENCE_PATHS = Object.freeze({
  document: '/openapi.json',
  schemas: '/schemas',
  page: '/api-reference',
  assets: '/api-reference/assets',
});

/** True for the reference page and its assets, which get their own Content-Security-Policy. */
export function isReferencePath(path: string): boolean {
  return path === REFERENCE_PATHS.page || path.startsWith(`${REFERENCE_PATHS.page}/`);
}
