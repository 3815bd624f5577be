/**
 * The URL a delivery is made for when its company has no webhook URL saved but uses
 * `kyc-sandbox listen`: on a shared sandbox the laptop has no public URL to save, and the
 * listener is where the event goes. `.invalid` never resolves (RFC 6761), so the engine
 * accepts it at enqueue like any name whose lookup failed, and the sandbox's `selectTransport`
 * always takes over before anything is dialled: the listener when one is connected, otherwise
 * a failed attempt that says to start one (retried on the schedule like any other).
 */
export const LISTENER_URL = 'https://kyc-sandbox-listen.invalid/';
/** The host of {@link LISTENER_URL}; the sandbox's resolver answers it without asking DNS. */
export const LISTENER_HOST = new URL(LISTENER_URL).hostname;

/**
 * Where a new event of a company goes: its saved URL; else, once the company has used
 * `kyc-sandbox listen` (the sandbox remembers it), its listener, connected now or not (the
 * retries find it when it is back, and a delivery that found none is failed, not lost: it can be
 * redelivered); else nowhere (the event is recorded as not sent).
 */
export function deliveryUrlOf(company: { webhookUrl: string | undefined; listenedAt: number | undefined }) {
  return company.webhookUrl ?? (company.listenedAt === undefined ? undefined : LISTENER_URL);
}

/** Whether a delivery was made for a listener rather than a saved URL. */
export const isListenerUrl = (url: string | undefined): boolean => url === LISTENER_URL;
