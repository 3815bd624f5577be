/**
 * Type-level proof, checked by `tsc` (`pnpm typecheck`), that the types generated from the
 * OpenAPI document and the real SDK agree: what `@kyc/client` returns fits the generated
 * response type, the generated bodies fit `@kyc/contracts`' types, and the other way round.
 * A drift between the zod schemas and the document fails the typecheck here.
 */
import type { KycClient } from '@kyc/client';
import type {
  ApiErrorBody as ContractErrorBody,
  SessionDetails as ContractSessionDetails,
  WebhookCombinedBody,
  WebhookStatusBody,
  WebhookV1Body,
} from '@kyc/contracts';
import type { components, operations } from './kyc-api.js';
import type { ApiErrorBody, SessionDetails, WebhookBody } from './kyc-api-client.js';

type Assignable<From, To> = [From] extends [To] ? true : false;
/**
 * A value as its JSON carries it. zod types an optional property as `T | undefined`; on the wire
 * it is absent or set, which is what the generated types say (they differ only under
 * `exactOptionalPropertyTypes`).
 */
type Wire<T> = T extends readonly (infer E)[]
  ? Wire<E>[]
  : T extends object
    ? { [K in keyof T]: Wire<Exclude<T[K], undefined>> }
    : T;
const holds = <T extends true>(): T => true as T;

type ClientFinish = Awaited<ReturnType<KycClient['finishSession']>>;
type ClientGet = Awaited<ReturnType<KycClient['getSession']>>;
type FinishAnswer = operations['finishSession']['responses']['200']['content']['application/json'];
type GetAnswer = operations['getSession']['responses']['200']['content']['application/json'];
type FinishBody = NonNullable<operations['finishSession']['requestBody']>['content']['application/json'];

export const conformance = {
  clientFinishFitsDocument: holds<Assignable<Wire<ClientFinish>, FinishAnswer>>(),
  clientGetFitsDocument: holds<Assignable<Wire<ClientGet>, GetAnswer>>(),
  documentDetailsFitContracts: holds<Assignable<SessionDetails, ContractSessionDetails>>(),
  contractsDetailsFitDocument: holds<Assignable<Wire<ContractSessionDetails>, SessionDetails>>(),
  errorBodiesAgree: holds<Assignable<Wire<ContractErrorBody>, ApiErrorBody>>(),
  finishRequestAgrees: holds<Assignable<{ sessionId: string }, FinishBody>>(),
  v1Fits: holds<Assignable<Wire<WebhookV1Body>, components['schemas']['WebhookV1Body']>>(),
  statusFits: holds<Assignable<Wire<WebhookStatusBody>, components['schemas']['WebhookStatusBody']>>(),
  combinedFits: holds<Assignable<Wire<WebhookCombinedBody>, WebhookBody>>(),
};
