import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { registerAsyncApi } from './asyncapi.js';
import type { HttpApp } from './server.js';

/** Registers the OpenAPI 3.1 document built from the route schemas, `/docs` to browse it, and the AsyncAPI document of the WebSocket. */
export async function registerOpenApi(app: HttpApp): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Client Data Service',
        version: '0.1.0',
        description:
          'Documents, a realtime tree, leaderboards and accounts for game and app clients. Every error ' +
          'answers `{"detail": "..."}`; validation errors (422) answer `{"detail": [{loc, msg, type}]}`.',
      },
      components: {
        securitySchemes: {
          clientId: { type: 'apiKey', in: 'header', name: 'x-client-id' },
          clientSecret: { type: 'apiKey', in: 'header', name: 'x-client-secret' },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A client access token (JWT) on client routes; an admin token (JWT) on admin routes; or, on ' +
              '`/admin/projects/{project_id}/…` and `/document-store/{org_id}/{project_id}/…` routes only, a server ' +
              'key `sk_…` of that project, with the permissions of its admin role (another project: 404).',
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  registerAsyncApi(app);
}
