import type { FastifyRequest } from 'fastify';
import type { AuthService } from '../../core/auth/auth-service.js';
import { credentialsFromHeaders, requireClient } from '../auth-hook.js';
import { hookOrigin } from '../hook-origin.js';
import {
  AuthResponseSchema,
  authErrorResponses,
  GuestBody,
  LoggedOutSchema,
  LoginBody,
  MeSchema,
  RefreshBody,
  SignupBody,
  UpdateMeBody,
} from '../schemas/auth.js';
import { ErrorSchema } from '../schemas/common.js';
import type { HttpApp } from '../server.js';

/** Client credentials and a valid token, but no particular permission: a user's own profile. */
function requireUser(auth: AuthService) {
  return async (request: FastifyRequest): Promise<void> => {
    const { clientId, clientSecret, accessToken } = credentialsFromHeaders(request);
    request.projectId = await auth.authenticateClient(clientId, clientSecret);
    request.userId = await auth.verifyAccessToken(accessToken, request.projectId);
  };
}

/** Sign-up, login, guest, refresh, logout (§14) and the caller's profile (§1) under `/auth`. */
export function authRoutes(app: HttpApp, deps: { auth: AuthService }): void {
  const { auth } = deps;

  app.register(async (scope: HttpApp) => {
    scope.addHook('onRequest', requireClient(auth));

    scope.post(
      '/auth/signup',
      { schema: { body: SignupBody, response: { 201: AuthResponseSchema, 409: ErrorSchema, ...authErrorResponses } } },
      async (request, reply) =>
        reply.status(201).send(await auth.signup(request.projectId, request.body, hookOrigin(request, null))),
    );

    scope.post(
      '/auth/login',
      { schema: { body: LoginBody, response: { 200: AuthResponseSchema, ...authErrorResponses } } },
      (request) => auth.login(request.projectId, request.body),
    );

    scope.post(
      '/auth/guest',
      { schema: { body: GuestBody, response: { 200: AuthResponseSchema, ...authErrorResponses } } },
      (request) => auth.guest(request.projectId, request.body.device_id, hookOrigin(request, null)),
    );

    scope.post(
      '/auth/refresh',
      { schema: { body: RefreshBody, response: { 200: AuthResponseSchema, ...authErrorResponses } } },
      (request) => auth.refresh(request.projectId, request.body.refresh_token),
    );

    scope.post(
      '/auth/logout',
      {
        schema: {
          description:
            'Ends the session of this refresh token: it is refused from then on. Access tokens already issued keep working until they expire. An unknown token, or one of another project, also answers 200 and revokes nothing.',
          body: RefreshBody,
          response: { 200: LoggedOutSchema, ...authErrorResponses },
        },
      },
      async (request) => {
        await auth.logout(request.projectId, request.body.refresh_token);
        return {};
      },
    );
  });

  app.register(async (scope: HttpApp) => {
    scope.addHook('onRequest', requireUser(auth));

    scope.get('/auth/me', { schema: { response: { 200: MeSchema, ...authErrorResponses } } }, (request) =>
      auth.me(request.projectId, request.userId),
    );

    scope.patch(
      '/auth/me',
      { schema: { body: UpdateMeBody, response: { 200: MeSchema, ...authErrorResponses } } },
      (request) => auth.updateMe(request.projectId, request.userId, request.body),
    );
  });
}
