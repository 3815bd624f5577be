// `node --import @kyc/test-support/hide-opentelemetry …` runs a process in which
// `@opentelemetry/api` cannot be imported: the "package absent" case of the optional peer.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
