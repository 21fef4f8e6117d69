import Type from 'typebox';
import { JsonObjectSchema } from './common.js';

/** A document as list and query return it. */
export const DocumentSchema = Type.Object({
  id: Type.String(),
  path: Type.String(),
  data: JsonObjectSchema,
});

export const DocumentWithCreatedSchema = Type.Object({
  id: Type.String(),
  path: Type.String(),
  data: JsonObjectSchema,
  created: Type.Boolean(),
});

export const DocumentWithCollectionsSchema = Type.Object({
  id: Type.String(),
  path: Type.String(),
  data: JsonObjectSchema,
  collections: Type.Array(Type.String()),
});

export const DocumentListSchema = Type.Object({ documents: Type.Array(DocumentSchema) });

export const DeletedSchema = Type.Object({ deleted: Type.String() });

export const PutDocumentBody = Type.Object({ data: Type.Optional(JsonObjectSchema) });

export const PatchDocumentBody = Type.Object({ data: JsonObjectSchema });

/** `transforms` beside `data` (§11), checked in core (an unknown op or a wrong operand is a 422). */
export const TransformsSchema = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Field transforms applied in the same atomic write, after `data`: `{"<field>": <op>}`, the field a path in the `where` form (`stats__level`; missing parents are created as objects, a parent holding something else is replaced by one). Ops: `{"increment": n}` (a missing or non-number field counts as 0), `{"maximum": n}`, `{"minimum": n}` (a missing or non-number field becomes n), `"server_time"` (the commit time, ISO 8601 UTC with milliseconds, the same for every write of one commit), `{"array_union": [...]}` (appends each element not already present, by deep equality), `{"array_remove": [...]}` (removes every equal element), `"delete"`. A field equal to or below a key of `data`, two transforms where one field is the other or below it, an unknown op, or a wrong operand → 422.',
});

/** The body of a client PUT: `data` and, beyond the seed, `transforms` (§11). */
export const PutClientDocumentBody = Type.Object({
  data: Type.Optional(JsonObjectSchema),
  transforms: Type.Optional(TransformsSchema),
});

/** The body of a client PATCH: `data`, `transforms` (§11), or both; neither → 422. */
export const PatchClientDocumentBody = Type.Object({
  data: Type.Optional(JsonObjectSchema),
  transforms: Type.Optional(TransformsSchema),
});

/** The precondition headers of document writes (§11). */
export const PreconditionHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'ETags (`"<version>"`, comma-separated) one of which the stored document must carry, or `*` for any existing document; else 412',
    }),
  ),
  'if-none-match': Type.Optional(
    Type.String({ description: '`*`: only when no document exists at the path (PUT only); else 412' }),
  ),
});

const BatchWriteSchema = Type.Object({
  op: Type.Union([Type.Literal('put'), Type.Literal('create'), Type.Literal('patch'), Type.Literal('delete')]),
  path: Type.String({ description: 'A document path; for `create`, a collection path (odd number of segments)' }),
  data: Type.Optional(JsonObjectSchema),
  transforms: Type.Optional(TransformsSchema),
  if_match: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0 }), Type.String()], {
      description: 'The version the document must have (`"*"`: any existing document); else the batch fails with 412',
    }),
  ),
  if_absent: Type.Optional(Type.Boolean({ description: 'true: only when no document exists at the path' })),
});

export const BatchBody = Type.Object({
  writes: Type.Array(BatchWriteSchema, { minItems: 1, maxItems: 500 }),
});

export const BatchResultSchema = Type.Object({
  version: Type.Integer({ description: 'The version of the batch commit' }),
  results: Type.Array(
    Type.Union([
      Type.Object({
        id: Type.String(),
        path: Type.String(),
        version: Type.Integer(),
        created: Type.Optional(Type.Boolean({ description: 'On `put` and `create` results' })),
      }),
      Type.Object({ deleted: Type.String() }),
    ]),
  ),
});

export const CreateDocumentBody = Type.Object({
  data: Type.Optional(JsonObjectSchema),
  parent_path: Type.Optional(Type.String()),
});

export const CollectionParams = Type.Object({ collection: Type.String() });

export const ListQuery = Type.Object({
  parent_path: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  start_after: Type.Optional(Type.String()),
});

/** The query string of a filtered, ordered query of a collection (`where`, `order_by`, ...). */
export const FilterQuery = Type.Object({
  where: Type.Optional(Type.Array(Type.String())),
  parent_path: Type.Optional(Type.String()),
  order_by: Type.Optional(Type.String({ minLength: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});
