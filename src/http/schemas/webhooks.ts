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
