/**
 * Webhook registrations (§16) behind `/admin/projects/{id}/webhooks` and `cds webhooks`: checked,
 * given a secret shown only in the creation's answer, listed without secrets, deleted.
 */
import type { AdminCaller } from '../admin/admin-caller.js';
import type { Clock } from '../clock.js';
import { AppError, conflict, notFound } from '../errors.js';
import type { EventStore } from '../events/event-store.js';
import { isoTime } from '../leaderboards/period-schedule.js';
import type { Delivery, DeliveryStatus, WebhookDeliveryStore } from './delivery-store.js';
import { KEPT_DELIVERIES } from './webhook-delivery.js';
import { checkWebhook, type WebhookInput } from './webhook-events.js';
import { newWebhookSecret } from './webhook-signing.js';
import { type Webhook, type WebhookStore, webhookConsumer } from './webhook-store.js';

/** A webhook as listings show it: never its secret. */
export interface WebhookView {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  created_at: string;
}

/** A webhook as its creation answers it: the secret is shown this once. */
export interface IssuedWebhook extends WebhookView {
  secret: string;
}

/** A delivery as the deliveries view shows it. */
export interface DeliveryView {
  event_id: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const DELIVERY_NOT_FOUND = 'Delivery not found';

/** What the service tells delivery: a webhook was made or deleted, a redelivery asked for. */
export interface DeliveryNotices {
  changed(): void;
  redeliveryAsked(webhookId: number): void;
}

const deliveryView = (delivery: Delivery): DeliveryView => ({
  event_id: delivery.eventId,
  type: delivery.type,
  status: delivery.status,
  attempts: delivery.attempts,
  last_status_code: delivery.lastStatusCode,
  last_error: delivery.lastError,
  next_attempt_at: delivery.nextAttemptAt === null ? null : isoTime(delivery.nextAttemptAt),
});
/**
 * What registering and deleting webhooks takes: an owner or editor admin. Outside the role table
 * (as `server_key.manage`) and never held by a server key: a webhook sends the project's events to
 * any URL, so one registered with a leaked key would outlive the key's revocation.
 */
const MANAGE_PERMISSION = 'webhook.manage';

/** A webhook without its secret, timestamps in ISO 8601. */
export function webhookView(webhook: Webhook): WebhookView {
  const { id, url, events, description, createdAt } = webhook;
  return { id, url, events, description, created_at: isoTime(createdAt) };
}

/** Registers, lists and deletes the webhooks of a project. */
export class WebhookService {
  constructor(
    private readonly store: WebhookStore,
    private readonly clock: Clock,
    private readonly delivery?: {
      deliveries: WebhookDeliveryStore;
      events: EventStore;
      notices: DeliveryNotices;
    },
  ) {}

  /** Throws 403 unless the caller may register and delete webhooks: an owner or editor admin, not a key. */
  requireManager(caller: AdminCaller): void {
    if (caller.kind !== 'admin' || caller.role === 'viewer') {
      throw new AppError('forbidden', `Permission '${MANAGE_PERMISSION}' required`);
    }
  }

  /** Registers a webhook (422 for a bad URL or event); the answer is the only place its secret appears. */
  async create(projectId: number, input: WebhookInput): Promise<IssuedWebhook> {
    const checked = checkWebhook(input);
    const stored = await this.store.create(projectId, { ...checked, secret: newWebhookSecret() }, this.clock.now());
    this.delivery?.notices.changed();
    return { ...webhookView(stored), secret: stored.secret };
  }

  /** The project's webhooks, by id, without secrets. */
  async list(projectId: number): Promise<{ webhooks: WebhookView[] }> {
    return { webhooks: (await this.store.list(projectId)).map(webhookView) };
  }

  /** Deletes a webhook of the project; 404 `Webhook not found` otherwise. */
  async delete(projectId: number, webhookId: number): Promise<{ deleted: number }> {
    if (!(await this.store.delete(projectId, webhookId))) throw notFound(WEBHOOK_NOT_FOUND);
    this.delivery?.notices.changed();
    return { deleted: webhookId };
  }

  /** The webhook's last deliveries, latest event first, of one status when given (404 for another project's). */
  async deliveries(
    projectId: number,
    webhookId: number,
    status: DeliveryStatus | null,
    limit: number,
  ): Promise<{ deliveries: DeliveryView[] }> {
    const { deliveries } = this.deliveryDeps();
    await this.webhook(projectId, webhookId);
    return { deliveries: (await deliveries.list(projectId, webhookId, status, limit)).map(deliveryView) };
  }

  /**
   * Sends a delivery again: a failed one once more, before the webhook's next events (it is
   * `pending` until that attempt, then `delivered` or `failed` again); a pending one at once
   * rather than when its backoff ends. A delivered one is 409.
   */
  async retry(projectId: number, webhookId: number, eventId: string): Promise<DeliveryView> {
    const { deliveries, events, notices } = this.deliveryDeps();
    await this.webhook(projectId, webhookId);
    const delivery = await deliveries.get(projectId, webhookId, eventId);
    if (!delivery) throw notFound(DELIVERY_NOT_FOUND);
    if (delivery.status === 'delivered') throw conflict('Delivery already delivered');
    const now = this.clock.now();
    const asked: Delivery = { ...delivery, status: 'pending', nextAttemptAt: now };
    if (delivery.status === 'failed') asked.redeliver = true;
    else if (!delivery.redeliver) await events.wake(projectId, webhookConsumer(webhookId));
    await deliveries.record(projectId, [asked], KEPT_DELIVERIES);
    notices.redeliveryAsked(webhookId);
    return deliveryView(asked);
  }

  private async webhook(projectId: number, webhookId: number): Promise<Webhook> {
    const webhook = await this.store.get(projectId, webhookId);
    if (!webhook) throw notFound(WEBHOOK_NOT_FOUND);
    return webhook;
  }

  private deliveryDeps() {
    if (!this.delivery) throw new Error('webhook delivery is not wired');
    return this.delivery;
  }
}
