import type { FastifyRequest } from 'fastify';
import { KEPT_DELIVERIES } from '../../core/webhooks/webhook-delivery.js';
import { WEBHOOK_NOT_FOUND, type WebhookService } from '../../core/webhooks/webhook-service.js';
import { type AdminGuard, callerOf, decorateAdminRequests } from '../admin-auth-hook.js';
import { NoBody, ProjectParams } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import {
  CreateWebhookBody,
  DeletedWebhookSchema,
  DeliveriesQuery,
  DeliveriesSchema,
  DeliveryParams,
  DeliverySchema,
  IssuedWebhookSchema,
  WebhookParams,
  WebhooksSchema,
} from '../schemas/webhooks.js';
import type { HttpApp } from '../server.js';
import { adminRoute, idOf, inProject, SCOPE } from './admin-project-shared.js';

/** What the webhook routes use. */
export interface AdminWebhookDeps {
  guard: AdminGuard;
  webhooks: WebhookService;
}

const MANAGERS =
  "Owners and editors only (403 `Permission 'webhook.manage' required` otherwise); a server key cannot " +
  'register or delete webhooks, so one registered with a leaked key cannot outlive its revocation.';

/**
 * Webhooks of a project (§16) under `/admin/projects/{project_id}/webhooks`: registrations, and
 * the deliveries view with its retry.
 */
export function adminWebhookRoutes(app: HttpApp, deps: AdminWebhookDeps): void {
  const { guard, webhooks } = deps;
  decorateAdminRequests(app);
  const anyRole = inProject(guard);
  const managers = [anyRole, async (request: FastifyRequest) => webhooks.requireManager(callerOf(request))];

  app.get(
    '/admin/projects/:project_id/webhooks',
    adminRoute(anyRole, {
      description: `The project’s webhooks by id, without their secrets. Any admin role. ${SCOPE}`,
      params: ProjectParams,
      response: { 200: WebhooksSchema, ...errorResponses },
    }),
    (request) => webhooks.list(request.projectId),
  );

  app.post(
    '/admin/projects/:project_id/webhooks',
    adminRoute(managers, {
      description:
        'Registers a webhook: every event of the project committed from now on whose type `events` names (a type, ' +
        'or a `<prefix>.*` pattern) is POSTed to `url` in the Standard Webhooks 1.0 format, signed with the ' +
        '`secret` answered here and nowhere else. 422 for a URL that is not absolute `http:`/`https:` or an ' +
        `unknown event type. ${MANAGERS} ${SCOPE}`,
      params: ProjectParams,
      body: CreateWebhookBody,
      response: { 201: IssuedWebhookSchema, ...errorResponses },
    }),
    async (request, reply) => reply.status(201).send(await webhooks.create(request.projectId, request.body)),
  );

  app.delete(
    '/admin/projects/:project_id/webhooks/:webhook_id',
    adminRoute(managers, {
      description: `Deletes a webhook: no event is sent to it afterwards. 404 \`Webhook not found\` for an unknown one. ${MANAGERS} ${SCOPE}`,
      params: WebhookParams,
      response: { 200: DeletedWebhookSchema, ...errorResponses },
    }),
    (request) => webhooks.delete(request.projectId, idOf(request.params.webhook_id, WEBHOOK_NOT_FOUND)),
  );

  app.get(
    '/admin/projects/:project_id/webhooks/:webhook_id/deliveries',
    adminRoute(anyRole, {
      description:
        'The webhook’s last deliveries, latest event first: each event it was sent with its status, attempts and ' +
        `last outcome. Kept: the ${KEPT_DELIVERIES} latest delivered and the ${KEPT_DELIVERIES} latest failed ` +
        'ones, and every pending one; a failed one keeps the event, so it can be retried after the outbox ' +
        `dropped it. \`status\` narrows to one status. Any admin role. 404 \`Webhook not found\`. ${SCOPE}`,
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: DeliveriesSchema, ...errorResponses },
    }),
    (request) =>
      webhooks.deliveries(
        request.projectId,
        idOf(request.params.webhook_id, WEBHOOK_NOT_FOUND),
        request.query.status ?? null,
        request.query.limit ?? 50,
      ),
  );

  app.post(
    '/admin/projects/:project_id/webhooks/:webhook_id/deliveries/:event_id/retry',
    adminRoute(managers, {
      description:
        'Sends a delivery again. A `failed` one is sent once more within a second, before the webhook’s next ' +
        'events (it is `pending` until then, then `delivered` or `failed` again); a `pending` one is tried now ' +
        'instead of when its backoff ends. A `delivered` one → 409 `Delivery already delivered`; an event the ' +
        `webhook has no delivery of → 404 \`Delivery not found\`. Answers the delivery as it now stands. ${MANAGERS} ${SCOPE}`,
      params: DeliveryParams,
      body: NoBody,
      response: { 200: DeliverySchema, ...errorResponses },
    }),
    (request) =>
      webhooks.retry(request.projectId, idOf(request.params.webhook_id, WEBHOOK_NOT_FOUND), request.params.event_id),
  );
}
