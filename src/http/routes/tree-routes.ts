/**
 * The realtime tree's REST routes (§3), registered for the signed-in user under `/realtime/db`
 * (their rules apply) and for admins and server keys under `/admin/projects/:project_id/realtime/db`
 * (no rules): the same reads, writes and answers, each under its own URL, guard and schema notes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { parseTreeTags } from '../../core/realtime/tree-atomic.js';
import type { TreeService, TreeValue, TreeWriteOptions } from '../../core/realtime/tree-service.js';
import { hookOrigin } from '../hook-origin.js';
import { ErrorSchema, errorResponses } from '../schemas/common.js';
import {
  PatchTreeBody,
  PutTreeBody,
  TreeDeletedSchema,
  TreePreconditionHeaders,
  TreeQuery,
  TreeValueSchema,
  treeRouteDescriptions,
} from '../schemas/realtime.js';
import type { HttpApp } from '../server.js';
import { sendTreeJson } from '../tree-json-reply.js';

/** What the routes of one access, reading (GET) or writing (PUT, PATCH, DELETE), add to their own. */
export interface TreeAccess {
  /** The routes' guard (none: the scope's hooks guard them). */
  onRequest?: (request: FastifyRequest) => Promise<void>;
  /** Schema fields besides the route's own (tags, security). */
  schema?: Record<string, unknown>;
  /** What the description adds after the route's own (who may call it). */
  note?: string;
}

/** Where the tree routes are and who they act for. */
export interface TreeRoutesSetup {
  /** The root's URL; a path below it is `${root}/*`. */
  root: string;
  /** The schema of the URL's parameters (the wildcard path, and an admin URL's project). */
  params: TSchema;
  /** The user a request acts as, whose rules apply (§9); undefined for none (admins, server keys). */
  userOf(request: FastifyRequest): number | undefined;
  read: TreeAccess;
  write: TreeAccess;
  /** Leaves the writes at the root out of the OpenAPI document (writing the whole tree is not advertised). */
  hideRootWrites?: boolean;
}

const treeWriteErrors = { ...errorResponses, 412: ErrorSchema };

/** A write's precondition, and for a client's write the origin its before hook is told of (§16). */
const writeOptions = (request: FastifyRequest, userId: number | undefined): TreeWriteOptions => {
  const ifMatch = request.headers['if-match'];
  return {
    ...(ifMatch === undefined ? {} : { ifMatch: parseTreeTags(ifMatch) }),
    ...(userId === undefined ? {} : { origin: hookOrigin(request, userId) }),
  };
};

/** The tree path a request names: the URL's wildcard, '' at the root. */
const pathOf = (request: FastifyRequest) => (request.params as { '*'?: string })['*'] ?? '';

/** Answers a write with `{path, value}` and the ETag of that value (none when the rules hide it from the caller). */
function sendWritten(reply: FastifyReply, written: TreeValue & { etag: string | null }): FastifyReply {
  if (written.etag !== null) reply.header('etag', `"${written.etag}"`);
  return reply.send({ path: written.path, value: written.value });
}

/** Registers GET, PUT, PATCH and DELETE of the tree at the root and at any path below it. */
export function treeRoutes(app: HttpApp, tree: TreeService, setup: TreeRoutesSetup): void {
  const { params, userOf, read, write } = setup;
  const guard = (access: TreeAccess) => (access.onRequest ? { onRequest: access.onRequest } : {});
  const schema = (access: TreeAccess, description: string, hide: boolean) => ({
    ...access.schema,
    description: access.note ? `${description} ${access.note}` : description,
    ...(hide ? { hide } : {}),
    params,
  });
  // The root without a slash is the root too; with a slash it reaches the wildcard with ''.
  for (const url of [setup.root, `${setup.root}/*`]) {
    const hide = setup.hideRootWrites === true && url === setup.root;
    /** A write's schema: its description, the precondition headers and the answers of a write. */
    const writeSchema = <Response extends TSchema>(description: string, response: Response) => ({
      ...schema(write, description, hide),
      headers: TreePreconditionHeaders,
      response: { 200: response, ...treeWriteErrors },
    });
    app.get(
      url,
      {
        ...guard(read),
        schema: {
          ...schema(read, treeRouteDescriptions.get, false),
          querystring: TreeQuery,
          response: { 200: TreeValueSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        // A shallow answer is not the value, so it carries no ETag of it.
        if (request.query.shallow) return tree.get(request.projectId, pathOf(request), true, userOf(request));
        return sendTreeJson(reply, await tree.getJson(request.projectId, pathOf(request), userOf(request)));
      },
    );

    app.put(
      url,
      { ...guard(write), schema: { ...writeSchema(treeRouteDescriptions.put, TreeValueSchema), body: PutTreeBody } },
      async (request, reply) => {
        const value = request.body.value as JsonValue;
        const userId = userOf(request);
        const options = writeOptions(request, userId);
        return sendWritten(reply, await tree.set(request.projectId, pathOf(request), value, userId, options));
      },
    );

    app.patch(
      url,
      {
        ...guard(write),
        schema: { ...writeSchema(treeRouteDescriptions.patch, TreeValueSchema), body: PatchTreeBody },
      },
      async (request, reply) => {
        const value = request.body.value as JsonObject;
        const userId = userOf(request);
        const options = writeOptions(request, userId);
        return sendWritten(reply, await tree.patch(request.projectId, pathOf(request), value, userId, options));
      },
    );

    app.delete(
      url,
      { ...guard(write), schema: writeSchema(treeRouteDescriptions.delete, TreeDeletedSchema) },
      async (request) => {
        const userId = userOf(request);
        const options = writeOptions(request, userId);
        const { deleted } = await tree.delete(request.projectId, pathOf(request), userId, options);
        return { deleted };
      },
    );
  }
}
