/**
 * The URLs deliveries are made for when their company has no webhook URL saved but uses
 * `kyc-sandbox listen`: on a shared sandbox the laptop has no public URL to save, and the
 * listener is where the event goes. `.invalid` never resolves (RFC 6761), so the engine accepts
 * such a URL at enqueue like any name whose lookup failed, and the sandbox's `selectTransport`
 * always takes over before anything is dialled: the listener when one is connected, otherwise a
 * failed attempt that says to start one (retried on the schedule like any other). Each company
 * gets its own host, so the engine's per-endpoint concurrency keeps companies apart as it does
 * for real URLs.
 */
export const LISTENER_DOMAIN = 'kyc-sandbox-listen.invalid';

/** The URL of one company's listener. */
export const listenerUrlFor = (companyId: number): string => `https://company-${companyId}.${LISTENER_DOMAIN}/`;

/** Whether a host is a listener's (the sandbox's resolver answers these without asking DNS). */
export const isListenerHost = (hostname: string): boolean => hostname.endsWith(`.${LISTENER_DOMAIN}`);

/**
 * Where a new event of a company goes: its saved URL; else, once the company has used
 * `kyc-sandbox listen` (the sandbox remembers it), its listener, connected now or not (the
 * retries find it when it is back, and a delivery that found none is failed, not lost: it can be
 * redelivered); else nowhere (the event is recorded as not sent).
 */
export function deliveryUrlOf(company: {
  id: number;
  webhookUrl: string | undefined;
  listenedAt: number | undefined;
}): string | undefined {
  return company.webhookUrl ?? (company.listenedAt === undefined ? undefined : listenerUrlFor(company.id));
}

/** Whether a delivery was made for a listener rather than a saved URL. */
export function isListenerUrl(url: string | null | undefined): boolean {
  if (typeof url !== 'string') return false;
  try {
    return isListenerHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
