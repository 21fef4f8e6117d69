/**
 * Webhook secrets and the Standard Webhooks 1.0 signature (§16): a secret is `whsec_` and the
 * base64 of its key; a delivery is signed `v1,` + base64 HMAC-SHA256, keyed with the decoded key,
 * over `<id>.<timestamp>.<body>`. Delivery calls `signWebhook`; receivers verify the same way.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** What every webhook secret starts with. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Bytes of a key the service makes. */
const KEY_BYTES = 32;
/** The key sizes Standard Webhooks allows (a secret imported from a file must have one). */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(KEY_BYTES).toString('base64')}`;
}

/** The key of a secret (the base64 after `whsec_`); null when it is not a secret of that form. */
export function webhookKey(secret: string): Buffer | null {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return null;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES ? key : null;
}

/** True when `secret` is `whsec_` and the base64 of a 24 to 64 byte key. */
export function isWebhookSecret(secret: string): boolean {
  return webhookKey(secret) !== null;
}

/**
 * The `webhook-signature` header of a delivery: `v1,` + base64 HMAC-SHA256 of
 * `<id>.<timestampSeconds>.<body>` keyed with the secret's decoded key. Throws on a malformed secret.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = webhookKey(secret);
  if (!key) throw new Error('not a webhook secret (whsec_ and base64)');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
