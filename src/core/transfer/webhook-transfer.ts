/**
 * Webhooks in §8's export and import. A file's webhook matches a webhook of the project with the
 * same URL and the same set of events (one each, in id order), which it updates (description;
 * the secret when the file has one); any other is created, with the file's secret or a fresh one.
 * So importing the same file twice adds nothing, and secrets never leave unless asked for.
 */

import { newWebhookSecret } from '../webhooks/webhook-signing.js';
import type { Webhook } from '../webhooks/webhook-store.js';
import type { ExportWebhook } from './export-format.js';

/** A webhook to write: an update of `existingId` or, when null, a new one. */
export interface ImportWebhookRow {
  existingId: number | null;
  url: string;
  events: string[];
  description: string | null;
  /** The secret to store; null keeps the existing webhook's. */
  secret: string | null;
  /** True when the secret was made by this import (the file had none): the summary shows it. */
  freshSecret: boolean;
}

/** A webhook as the file has it: `secret` only when `withSecrets`. */
export function exportedWebhook(webhook: Webhook, withSecrets: boolean): ExportWebhook {
  const { url, events, description, secret } = webhook;
  return withSecrets ? { url, events, description, secret } : { url, events, description };
}

/** The key a file's webhook and a stored one match on: the URL and the events as a set. */
function matchKey(url: string, events: readonly string[]): string {
  return JSON.stringify([url, [...new Set(events)].sort()]);
}

/** The webhook rows an import writes into a project holding `existing`. */
export function planWebhooks(
  file: readonly ExportWebhook[],
  existing: readonly { id: number; url: string; events: string[] }[],
): ImportWebhookRow[] {
  const unmatched = new Map<string, number[]>();
  for (const webhook of existing) {
    const key = matchKey(webhook.url, webhook.events);
    unmatched.set(key, [...(unmatched.get(key) ?? []), webhook.id]);
  }
  return file.map((webhook): ImportWebhookRow => {
    const existingId = unmatched.get(matchKey(webhook.url, webhook.events))?.shift() ?? null;
    const given = webhook.secret ?? null;
    const secret = given ?? (existingId === null ? newWebhookSecret() : null);
    return {
      existingId,
      url: webhook.url,
      events: [...webhook.events],
      description: webhook.description ?? null,
      secret,
      freshSecret: given === null && existingId === null,
    };
  });
}
