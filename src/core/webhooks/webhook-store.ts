/** The webhook registrations port (§16): engines store them, delivery and the admin API read them. */

/** A webhook of a project as stored, with its signing secret. */
export interface Webhook {
  id: number;
  projectId: number;
  /** An absolute `http:` or `https:` URL. */
  url: string;
  /** Event types and `<prefix>.*` patterns, as registered (`webhookMatches` reads them). */
  events: string[];
  description: string | null;
  /** `whsec_` + base64 of the key; stored as is, since signing needs the key itself. */
  secret: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** A webhook to store. */
export interface NewWebhook {
  url: string;
  events: string[];
  description: string | null;
  secret: string;
}

/** A webhook's name as a consumer of its project's events (§16). */
export const webhookConsumer = (webhookId: number): string => `webhook:${webhookId}`;

/** Webhook registrations; each method is one transaction. */
export interface WebhookStore {
  /**
   * Stores a webhook of the project created at `now` (epoch ms), with its consumer
   * (`webhookConsumer`) placed after the project's last event, ordered against every commit's
   * check of the project's webhooks (see `EventRecord`): the webhook gets exactly the events of the
   * commits after it.
   */
  create(projectId: number, webhook: NewWebhook, now: number): Promise<Webhook>;
  /** The project's webhooks, by id. */
  list(projectId: number): Promise<Webhook[]>;
  /** A webhook of the project, or null (unknown, or of another project). */
  get(projectId: number, webhookId: number): Promise<Webhook | null>;
  /** Deletes a webhook of the project, its consumer and its deliveries; false when it has no such webhook. */
  delete(projectId: number, webhookId: number): Promise<boolean>;
}
