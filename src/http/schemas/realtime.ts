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

/** Descriptions of the routes, for the OpenAPI document. */
export const treeRouteDescriptions = {
  get: 'Reads the subtree at the path, assembled (§3). The empty path is the root.',
  put: `Replaces the subtree at the path; ancestors that held a value become objects. ${KEY_RULE}`,
  patch: `Applies each key of \`value\` as a child set, atomically. ${KEY_RULE}`,
  delete: 'Deletes the path and everything below it; 200 whether or not anything was there.',
};
