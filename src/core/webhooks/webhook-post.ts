/**
 * One HTTP attempt of a webhook delivery (§16): `POST url` with the Standard Webhooks headers and
 * the event JSON, through Node's own `fetch` (undici, which keeps connections to a receiver open
 * between deliveries), abandoned after `timeoutMs`.
 */

/** What an attempt got: an HTTP status, or no answer (refused, reset, timed out) and why. */
export type PostOutcome = { status: number } | { status: null; error: string };

/** Sends one delivery; never throws. */
export type PostWebhook = (
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
) => Promise<PostOutcome>;

/** `PostWebhook` with the global `fetch`; the answer's body is read and dropped (so its connection is reused). */
export const fetchPost: PostWebhook = async (url, headers, body, timeoutMs) => {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || name === 'AbortError')
      return { status: null, error: `no answer within ${timeoutMs} ms` };
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { status: null, error: `${error instanceof Error ? error.message : String(error)}${cause}` };
  }
};
