// Node module-resolution hooks that make `@opentelemetry/api` (and its subpaths) unresolvable,
// as in an install without the optional peer. Loaded by ./register.mjs through `--import`.
export async function resolve(specifier, context, nextResolve) {
  if (specifier === '@opentelemetry/api' || specifier.startsWith('@opentelemetry/api/')) {
    const error = new Error(`Cannot find package '${specifier}' (hidden by @kyc/test-support/hide-opentelemetry)`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return nextResolve(specifier, context);
}
