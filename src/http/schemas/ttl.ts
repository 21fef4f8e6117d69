import Type from 'typebox';

const FIELD_DESCRIPTION =
  'The key path of `data` holding each document’s expiry time, in the `where` form (nested with `__`): ' +
  'epoch milliseconds (a number) or an ISO 8601 time `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`';

export const TtlBody = Type.Object({ field: Type.String({ description: FIELD_DESCRIPTION }) });

export const TtlSchema = Type.Object({
  collection: Type.String({ description: 'The collection (second-to-last path segment), at any depth' }),
  field: Type.String({ description: FIELD_DESCRIPTION }),
});

export const DeletedTtlSchema = Type.Object({ deleted: Type.String({ description: 'The collection' }) });
