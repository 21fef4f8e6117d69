/**
 * Webhook registrations (§16) behind `/admin/projects/{id}/webhooks` and `cds webhooks`: checked,
 * given a secret shown only in the creation's answer, listed without secrets, deleted.
 */
import type { AdminCaller } from '../admin/admin-caller.js';
import type { Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { isoTime } from '../leaderboards/period-schedule.js';
import { checkWebhook, type WebhookInput } from './webhook-events.js';
import { newWebhookSecret } from './webhook-signing.js';
import type { Webhook, WebhookStore } from './webhook-store.js';

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

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
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
    return { ...webhookView(stored), secret: stored.secret };
  }

  /** The project's webhooks, by id, without secrets. */
  async list(projectId: number): Promise<{ webhooks: WebhookView[] }> {
    return { webhooks: (await this.store.list(projectId)).map(webhookView) };
  }

  /** Deletes a webhook of the project; 404 `Webhook not found` otherwise. */
  async delete(projectId: number, webhookId: number): Promise<{ deleted: number }> {
    if (!(await this.store.delete(projectId, webhookId))) throw notFound(WEBHOOK_NOT_FOUND);
    return { deleted: webhookId };
  }
}
