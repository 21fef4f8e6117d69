import Type, { type TSchema } from 'typebox';

/** A TypeBox schema that also accepts null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
