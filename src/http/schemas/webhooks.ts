/** TypeBox schemas of the webhook registrations (§16) under `/admin/projects/{id}/webhooks`. */
import Type from 'typebox';
import { Nullable } from '../../core/nullable-schema.js';
import {
  MAX_WEBHOOK_DESCRIPTION,
  MAX_WEBHOOK_EVENTS,
  MAX_WEBHOOK_URL,
  WEBHOOK_EVENT_TYPES,
} from '../../core/webhooks/webhook-events.js';

const positive = (description: string) => Type.String({ description: `${description} (a positive integer)` });

export const WebhookParams = Type.Object({ project_id: positive('Project id'), webhook_id: positive('Webhook id') });

const Url = Type.String({
  maxLength: MAX_WEBHOOK_URL,
  description: 'Where events are POSTed: an absolute `http:` or `https:` URL (422 otherwise)',
});
const Events = Type.Array(Type.String(), {
  minItems: 1,
  maxItems: MAX_WEBHOOK_EVENTS,
  description:
    `Event types (${WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}) or \`<prefix>.*\` patterns ` +
    '(`document.*`, `leaderboards.*`, …); anything else → 422',
});
const Description = Nullable(Type.String({ maxLength: MAX_WEBHOOK_DESCRIPTION, description: 'Free text for people' }));

export const CreateWebhookBody = Type.Object({
  url: Url,
  events: Events,
  description: Type.Optional(Description),
});

const webhookFields = {
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  created_at: Type.String({ description: 'ISO 8601; the webhook receives only events committed after it' }),
};

export const WebhookSchema = Type.Object(webhookFields);
export const IssuedWebhookSchema = Type.Object({
  ...webhookFields,
  secret: Type.String({
    description:
      '`whsec_` + base64 of 32 random bytes: the key of the `webhook-signature` HMAC (Standard Webhooks). ' +
      'Shown this once; listings never show it',
  }),
});
export const WebhooksSchema = Type.Object({ webhooks: Type.Array(WebhookSchema) });
export const DeletedWebhookSchema = Type.Object({ deleted: Type.Integer({ description: 'The deleted webhook’s id' }) });

const Status = Type.Union([Type.Literal('delivered'), Type.Literal('pending'), Type.Literal('failed')], {
  description:
    '`delivered` (a 2xx within 10 s), `pending` (being retried: 5 s doubling to 1 h), `failed` (no 2xx for 24 h, ' +
    'or a failed retry asked for)',
});

export const DeliveryParams = Type.Object({
  project_id: positive('Project id'),
  webhook_id: positive('Webhook id'),
  event_id: Type.String({ maxLength: 64, description: 'The event’s id (the `webhook-id` header it was sent with)' }),
});

export const DeliveriesQuery = Type.Object({
  status: Type.Optional(Status),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'At most this many' })),
});

export const DeliverySchema = Type.Object({
  event_id: Type.String(),
  type: Type.String({ description: 'The event type' }),
  status: Status,
  attempts: Type.Integer({ description: 'Attempts made so far' }),
  last_status_code: Nullable(Type.Integer({ description: 'The HTTP status of the last attempt; null: no answer' })),
  last_error: Nullable(Type.String({ description: 'Why the last attempt failed' })),
  next_attempt_at: Nullable(Type.String({ description: 'ISO 8601: when a pending delivery is tried next' })),
});

export const DeliveriesSchema = Type.Object({ deliveries: Type.Array(DeliverySchema) });
