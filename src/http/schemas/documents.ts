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

export const QueryQuery = Type.Object({
  where: Type.Optional(Type.Array(Type.String())),
  parent_path: Type.Optional(Type.String()),
  order_by: Type.Optional(Type.String({ minLength: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});
