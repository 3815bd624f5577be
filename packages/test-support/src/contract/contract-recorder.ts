import {
  type ContractChecker,
  createContractChecker,
  type SeenRequest,
  type SeenResponse,
  type SeenWebhook,
} from './contract-checker.js';

/**
 * Collects every real answer and delivery a test file sees and judges each against the
 * published OpenAPI document. Wire it where the exchanges happen (a request helper, a client's
 * `fetch`, a test receiver) and call `assertConforms()` after the tests.
 */
export interface ContractRecorder {
  /** Judges one request a caller sent; returns its violations. */
  request(seen: SeenRequest): readonly string[];
  /** Judges one answer; returns its violations (empty when it conforms or is outside the document). */
  response(seen: SeenResponse): readonly string[];
  /** Judges one webhook delivery; returns its violations. */
  webhook(seen: SeenWebhook): readonly string[];
  /**
   * A `fetch` that records every answer it receives (for `new KycClient({ fetch })`). A plain
   * function type, not `typeof fetch`: under Bun's types that also demands `fetch.preconnect`.
   */
  readonly fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** How many answers and deliveries the document covered so far. */
  counts(): { readonly responses: number; readonly webhooks: number };
  /** Throws, listing each one, when any exchange so far broke the contract. */
  assertConforms(): void;
}

let shared: ContractChecker | undefined;

/**
 * A recorder over one checker per process (building the document and compiling its schemas
 * costs ~100 ms).
 *
 * @example
 * const contract = createContractRecorder();
 * afterAll(() => contract.assertConforms());
 * const client = new KycClient({ baseUrl, username, password, fetch: contract.fetch });
 */
export function createContractRecorder(): ContractRecorder {
  shared ??= createContractChecker();
  const checker = shared;
  const violations: string[] = [];
  let responses = 0;
  let webhooks = 0;
  const request = (seen: SeenRequest) => {
    const verdict = checker.checkRequest(seen);
    if (!verdict.covered) return [];
    violations.push(...verdict.violations);
    return verdict.violations;
  };
  const response = (seen: SeenResponse) => {
    const verdict = checker.checkResponse(seen);
    if (!verdict.covered) return [];
    responses++;
    violations.push(...verdict.violations);
    return verdict.violations;
  };
  const webhook = (seen: SeenWebhook) => {
    const verdict = checker.checkWebhook(seen);
    if (!verdict.covered) return [];
    webhooks++;
    violations.push(...verdict.violations);
    return verdict.violations;
  };
  const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const sent = new Request(input, init);
    const path = new URL(sent.url).pathname;
    const body = sent.body ? await sent.clone().text() : undefined;
    request({ method: sent.method, path, headers: sent.headers, body });
    const answer = await globalThis.fetch(sent);
    response({
      method: sent.method,
      path,
      status: answer.status,
      headers: answer.headers,
      body: await answer.clone().text(),
    });
    return answer;
  };
  return {
    request,
    response,
    webhook,
    fetch: recordingFetch,
    counts: () => ({ responses, webhooks }),
    assertConforms() {
      if (violations.length > 0)
        throw new Error(`exchanges outside the published OpenAPI document:\n${violations.join('\n')}`);
    },
  };
}
