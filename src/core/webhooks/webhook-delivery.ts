/**
 * Webhook delivery (§16): each webhook of a project is the outbox consumer `webhook:<id>`, made
 * with the webhook at the project's last event (so it gets only later commits). It sends the
 * events its patterns match, one at a time in commit order, in the Standard Webhooks format; a 2xx
 * within 10 s is delivered, anything else is tried again 5 s later, doubling to 1 h, until 24 h
 * after the first attempt, when the delivery is `failed` and the webhook moves on to its next
 * event. Each attempt leaves a row in the deliveries view; a failed one keeps the event's JSON, so
 * that it can be sent again when an admin asks, after the outbox has dropped the event.
 */
import type { Clock } from '../clock.js';
import type { ConsumerSource, EventConsumer, Handled } from '../events/consumer-runner.js';
import type { StoredEvent } from '../events/outbox-events.js';
import type { ChildLogger } from '../functions/before-hooks.js';
import type { Delivery, DeliveryStatus, WebhookDeliveryStore } from './delivery-store.js';
import { webhookMatches } from './webhook-events.js';
import { httpPost, type PostOutcome, type PostWebhook } from './webhook-post.js';
import { signWebhook } from './webhook-signing.js';
import { type Webhook, type WebhookStore, webhookConsumer } from './webhook-store.js';

/** How many delivered, and how many failed, deliveries each webhook keeps for the view. */
export const KEPT_DELIVERIES = 100;

/** The delivery policy; every field has the contract's default, tests shorten them. */
export interface WebhookDeliveryOptions {
  /** The first retry's delay (then doubling); default 5 s. */
  firstRetryMs?: number;
  /** The longest delay between attempts; default 1 h. */
  lastRetryMs?: number;
  /** How long after the first attempt a delivery is retried before it is `failed`; default 24 h. */
  giveUpMs?: number;
  /** How long an attempt waits for an answer; default 10 s. */
  timeoutMs?: number;
}

/** Where each attempt's outcome is counted (`cds_webhook_deliveries_total{status}`). */
export interface WebhookObserver {
  /** `delivered`; `pending`: failed, to be retried; `failed`: failed and given up (or a redelivery failed). */
  attempted(status: DeliveryStatus): void;
}

export interface WebhookDeliveryDeps {
  webhooks: WebhookStore;
  deliveries: WebhookDeliveryStore;
  clock: Clock;
  log: ChildLogger;
  options?: WebhookDeliveryOptions;
  observer?: WebhookObserver;
  /** Default: `httpPost`. */
  post?: PostWebhook;
}

/** How often a webhook looks for redeliveries asked on another instance. */
const REDELIVERY_CHECK_MS = 1000;

/** The webhooks of each project, as consumers of its events. */
export class WebhookDeliveries implements ConsumerSource {
  private readonly policy: Required<WebhookDeliveryOptions>;
  private readonly post: PostWebhook;
  /** When each webhook last looked for redeliveries (0: asked on this instance, look now). */
  private readonly redeliveryChecked = new Map<number, number>();

  constructor(private readonly deps: WebhookDeliveryDeps) {
    const options = deps.options ?? {};
    this.policy = {
      firstRetryMs: options.firstRetryMs ?? 5000,
      lastRetryMs: options.lastRetryMs ?? 3_600_000,
      giveUpMs: options.giveUpMs ?? 86_400_000,
      timeoutMs: options.timeoutMs ?? 10_000,
    };
    this.post = deps.post ?? httpPost;
  }

  /** The delay before attempt `attempts + 1`. */
  retryDelay(attempts: number): number {
    return Math.min(this.policy.firstRetryMs * 2 ** Math.max(0, attempts - 1), this.policy.lastRetryMs);
  }

  /** A redelivery was asked for on this instance: the webhook looks for it at its next run. */
  redeliveryAsked(webhookId: number): void {
    this.redeliveryChecked.set(webhookId, 0);
  }

  async consumers(projectId: number): Promise<readonly EventConsumer[]> {
    return (await this.deps.webhooks.list(projectId)).map((webhook) => this.consumerOf(webhook));
  }

  private consumerOf(webhook: Webhook): EventConsumer {
    const delivered: Delivery[] = [];
    const { deliveries } = this.deps;
    return {
      name: webhookConsumer(webhook.id),
      start: 'existing',
      advanceEach: false,
      beforeEvents: () => this.redeliver(webhook),
      handle: async (stored, attempt) => {
        if (!webhookMatches(webhook.events, stored.type)) return { ok: true };
        const { outcome, row } = await this.attempt(webhook, stored, attempt);
        if (ok(outcome)) {
          delivered.push(row);
          this.deps.observer?.attempted('delivered');
          return { ok: true };
        }
        return this.failed(webhook, stored, row);
      },
      settle: async () => {
        if (delivered.length === 0) return;
        await deliveries.record(webhook.projectId, delivered.splice(0), KEPT_DELIVERIES);
      },
    };
  }

  /** One attempt at an event: its outcome and the delivery row it leaves (as delivered, if it was). */
  private async attempt(webhook: Webhook, stored: StoredEvent, attempt: number) {
    const now = this.deps.clock.now();
    const timestamp = Math.floor(now / 1000);
    const outcome = await this.post(
      webhook.url,
      {
        'content-type': 'application/json',
        'webhook-id': stored.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(webhook.secret, stored.id, timestamp, stored.json),
      },
      stored.json,
      this.policy.timeoutMs,
    );
    const row: Delivery = {
      webhookId: webhook.id,
      seq: stored.seq,
      eventId: stored.id,
      type: stored.type,
      status: 'delivered',
      attempts: attempt,
      lastStatusCode: outcome.status,
      lastError: ok(outcome) ? null : errorOf(outcome),
      nextAttemptAt: null,
      firstAttemptAt: now,
      redeliver: false,
      json: null,
    };
    return { outcome, row };
  }

  /** A failed attempt in commit order: retried later (the webhook waits), or after 24 h given up. */
  private async failed(webhook: Webhook, stored: StoredEvent, row: Delivery): Promise<Handled> {
    const { clock, deliveries, observer, log } = this.deps;
    const now = clock.now();
    const first =
      row.attempts > 1
        ? ((await deliveries.get(webhook.projectId, webhook.id, stored.id))?.firstAttemptAt ?? now)
        : now;
    const error = row.lastError ?? 'failed';
    const json = stored.json;
    if (now - first >= this.policy.giveUpMs) {
      await deliveries.record(webhook.projectId, [{ ...row, status: 'failed', json }], KEPT_DELIVERIES);
      observer?.attempted('failed');
      log.child({ webhook_id: webhook.id, event_id: stored.id }).warn({ error }, 'webhook delivery failed');
      return { ok: true };
    }
    const retryAt = now + this.retryDelay(row.attempts);
    await deliveries.record(
      webhook.projectId,
      [{ ...row, status: 'pending', nextAttemptAt: retryAt, json }],
      KEPT_DELIVERIES,
    );
    observer?.attempted('pending');
    return { ok: false, error, retryAt };
  }

  /** Sends again, once each, the failed deliveries an admin asked for, before the webhook's next events. */
  private async redeliver(webhook: Webhook): Promise<void> {
    const now = this.deps.clock.now();
    if (now - (this.redeliveryChecked.get(webhook.id) ?? 0) < REDELIVERY_CHECK_MS) return;
    this.redeliveryChecked.set(webhook.id, now);
    const { deliveries, observer } = this.deps;
    for (const asked of await deliveries.redeliveries(webhook.projectId, webhook.id)) {
      if (asked.json === null) continue;
      const stored = { projectId: webhook.projectId, seq: asked.seq, id: asked.eventId, json: asked.json };
      const { outcome, row } = await this.attempt(
        webhook,
        { ...stored, type: asked.type as StoredEvent['type'] },
        asked.attempts + 1,
      );
      const status: DeliveryStatus = ok(outcome) ? 'delivered' : 'failed';
      const kept = { ...row, status, json: ok(outcome) ? null : asked.json, firstAttemptAt: asked.firstAttemptAt };
      await deliveries.record(webhook.projectId, [kept], KEPT_DELIVERIES);
      observer?.attempted(status);
    }
  }
}

const ok = (outcome: PostOutcome): boolean => outcome.status !== null && outcome.status >= 200 && outcome.status < 300;

const errorOf = (outcome: PostOutcome): string =>
  outcome.status === null ? outcome.error : `the receiver answered ${outcome.status}`;
