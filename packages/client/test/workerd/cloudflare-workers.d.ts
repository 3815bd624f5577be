// The part of workerd's built-in `cloudflare:workers` module the test Worker uses (the package does
// not install @cloudflare/workers-types): the bindings, readable outside a request.
declare module 'cloudflare:workers' {
  export const env: Readonly<Record<string, unknown>>;
}
