import Type from 'typebox';

const KEY_RULE =
  'Object keys inside a written value name child paths: a key that is empty, `.` or `..`, or contains `/`, is a 400.';

/** `{path, value}`: a path of the tree and the JSON value there (null when nothing is). */
export const TreeValueSchema = Type.Object({
  path: Type.String({ description: 'The normalized path' }),
  value: Type.Unknown({ description: 'The JSON value at the path; null when nothing is stored there' }),
});

/** The path of `/realtime/db/*`; absent on `/realtime/db` (the root). */
export const TreeParams = Type.Object({ '*': Type.Optional(Type.String()) });

/** `{deleted: path}`. */
export const TreeDeletedSchema = Type.Object({ deleted: Type.String() });

export const TreeQuery = Type.Object({
  shallow: Type.Optional(
    Type.Boolean({ description: "true: an object's keys with `true` as values instead of the whole subtree" }),
  ),
});

export const PutTreeBody = Type.Object({
  value: Type.Unknown({
    description: `Any JSON value; null or {} deletes. The subtree at the path is replaced whole. ${KEY_RULE}`,
  }),
});

export const PatchTreeBody = Type.Object({
  value: Type.Record(Type.String(), Type.Unknown(), {
    description: `Each key is a child path relative to the URL path (it may contain \`/\`); each is set as by PUT, all in one atomic write. Keys where one is a prefix path of another are a 400. ${KEY_RULE}`,
  }),
});

/** `If-Match` on tree writes (§11). */
export const TreePreconditionHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'ETags (quoted, comma-separated) one of which the value now at the path must have (the ETag of null too: "only while empty"), or `*` for any value but null; else 412 `Precondition failed`',
    }),
  ),
});

const ETAG =
  'The answer carries `ETag: "<hash>"`, a hash of the canonical JSON (keys sorted) of the value at the path, the same on every instance.';
const SERVER_VALUES =
  'Anywhere in the value, `{".sv": "timestamp"}` stores the commit time in epoch milliseconds and `{".sv": {"increment": n}}` the number stored at that path plus n (0 when missing or not a number), resolved inside the write\'s transaction; another object with a `.sv` key is a 422.';

/** Descriptions of the routes, for the OpenAPI document. */
export const treeRouteDescriptions = {
  get: `Reads the subtree at the path, assembled. The empty path is the root. ${ETAG} A shallow answer has no ETag.`,
  put: `Replaces the subtree at the path; ancestors that held a value become objects. ${KEY_RULE} ${SERVER_VALUES} ${ETAG}`,
  patch: `Applies each key of \`value\` as a child set, atomically. ${KEY_RULE} ${SERVER_VALUES} ${ETAG} (none when the rules deny reading the path)`,
  delete: 'Deletes the path and everything below it; 200 whether or not anything was there. `If-Match` as for PUT.',
};
