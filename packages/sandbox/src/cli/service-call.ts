import { HEADERS, JSON_CONTENT_TYPE } from '@kyc/contracts';
import { cannotReachSandbox } from './cannot-reach-sandbox.js';
import { CliError } from './cli-error.js';
import { type ServiceLogin, serviceEndpoint } from './service-login.js';

/** One JSON call to the sandbox as the login; a refusal becomes a one-line error with the service's message. */
export async function serviceCall(login: ServiceLogin, method: string, path: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(serviceEndpoint(login.service, path), {
      method,
      headers: {
        [HEADERS.authorization]: login.authorization,
        ...(body === undefined ? {} : { [HEADERS.contentType]: JSON_CONTENT_TYPE }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: 'manual',
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new CliError(cannotReachSandbox(login.service.origin, cause));
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const message = (json as { error?: { message?: string } } | undefined)?.error?.message ?? text.slice(0, 200);
    const advice = response.status === 401 ? ` ${login.retry}` : '';
    throw new CliError(`${method} ${path} was refused (HTTP ${response.status}): ${message}${advice}`);
  }
  return json;
}
