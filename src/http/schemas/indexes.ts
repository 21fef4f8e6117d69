import Type from 'typebox';

const Order = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);

const IndexFieldSchema = Type.Object({
  field: Type.String({ minLength: 1, description: 'A key path of `data` in the `where` form, nested with `__`' }),
  order: Order,
});

export const CreateIndexBody = Type.Object({
  collection: Type.String({ minLength: 1, description: 'The collection (second-to-last path segment), at any depth' }),
  fields: Type.Array(
    Type.Object({
      field: Type.String({ minLength: 1, description: 'A key path of `data` in the `where` form, nested with `__`' }),
      order: Type.Optional(Order),
    }),
    { minItems: 1, maxItems: 4 },
  ),
});

export const IndexSchema = Type.Object({
  id: Type.Integer(),
  collection: Type.String(),
  fields: Type.Array(IndexFieldSchema),
  state: Type.Union([Type.Literal('building'), Type.Literal('ready'), Type.Literal('failed')], {
    description: '`building` until the database index is built, then `ready` (queries use it) or `failed`',
  }),
});

export const IndexesSchema = Type.Object({ indexes: Type.Array(IndexSchema) });
export const IndexParams = Type.Object({
  project_id: Type.String({ description: 'Project id (a positive integer)' }),
  index_id: Type.String({ description: 'Index id (a positive integer)' }),
});
export const DeletedIndexSchema = Type.Object({ deleted: Type.Integer() });

/** The parameters of a §2 query, with its collection. */
export const ExplainQuery = Type.Object({
  collection: Type.String({ minLength: 1 }),
  where: Type.Optional(Type.Array(Type.String())),
  parent_path: Type.Optional(Type.String()),
  order_by: Type.Optional(Type.String({ minLength: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const ExplainSchema = Type.Object({
  collection: Type.String(),
  index: Type.Union([IndexSchema, Type.Null()], { description: 'The ready index the query uses, or null' }),
  sought: Type.Array(Type.String(), { description: 'The clauses the index seeks on (as sent)' }),
  ordered: Type.Boolean({ description: 'True when the index yields the query’s order (no sort)' }),
  plan: Type.Array(Type.String(), { description: 'The database’s own plan of the statement, one line per step' }),
});
