/**
 * The deliveries port (§16): each webhook's last attempts at its events, as the deliveries view
 * shows them. Core decides what a delivery's status, retry time and count of kept rows are; the
 * engines store and fetch them (`webhook_deliveries`, one row per webhook and event).
 */

export type DeliveryStatus = 'delivered' | 'pending' | 'failed';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['delivered', 'pending', 'failed'];

/** A webhook's delivery of one event, as stored. */
export interface Delivery {
  webhookId: number;
  /** The event's place in its project's outbox. */
  seq: number;
  eventId: string;
  type: string;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  /** The HTTP status of the last attempt; null when it got no answer. */
  lastStatusCode: number | null;
  lastError: string | null;
  /** When the next attempt is due (epoch ms); null unless pending. */
  nextAttemptAt: number | null;
  /** When the first attempt was made (epoch ms): retries stop 24 h after it. */
  firstAttemptAt: number;
  /** A failed delivery an admin asked to send again (taken before the webhook's next events). */
  redeliver: boolean;
  /** The event's JSON while it is not delivered (a failed one can be sent again after the outbox dropped it). */
  json: string | null;
}

/** Stores and reads the deliveries of webhooks; deleting a webhook deletes them (`WebhookStore.delete`). */
export interface WebhookDeliveryStore {
  /**
   * Stores each delivery, replacing the row of the same webhook and event but keeping its
   * `firstAttemptAt`; then keeps, of each webhook written, the `keep` latest delivered and the
   * `keep` latest failed (pending ones are all kept). One transaction.
   */
  record(projectId: number, deliveries: readonly Delivery[], keep: number): Promise<void>;
  /** A webhook's delivery of an event, or null. */
  get(projectId: number, webhookId: number, eventId: string): Promise<Delivery | null>;
  /** A webhook's deliveries, latest event first, of one status when given; at most `limit`. */
  list(projectId: number, webhookId: number, status: DeliveryStatus | null, limit: number): Promise<Delivery[]>;
  /** The webhook's deliveries asked to be sent again, oldest event first. */
  redeliveries(projectId: number, webhookId: number): Promise<Delivery[]>;
}
