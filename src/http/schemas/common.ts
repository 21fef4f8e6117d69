import Type from 'typebox';

/** Any JSON object (documents' `data`). */
export const JsonObjectSchema = Type.Record(Type.String(), Type.Unknown());

/** The `{detail}` body of every error (§0); 422 carries a list of problems instead. */
export const ErrorSchema = Type.Object({
  detail: Type.Union([
    Type.String(),
    Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
      }),
    ),
  ]),
});

/** The catch-all path parameter of routes such as `/documents/docs/*`. */
export const WildcardParams = Type.Object({ '*': Type.String() });

/** A document path after `/docs`; missing on `/docs` itself, which answers the §2 400 of the empty path. */
export const DocumentPathParams = Type.Object({ '*': Type.Optional(Type.String()) });

/**
 * Error responses every authenticated route may give, client and admin alike (429 when rate
 * limits are configured; on admin routes 404 `Project not found` also for another organisation's project).
 */
export const errorResponses = {
  400: ErrorSchema,
  401: ErrorSchema,
  403: ErrorSchema,
  404: ErrorSchema,
  413: ErrorSchema,
  415: ErrorSchema,
  422: ErrorSchema,
  429: ErrorSchema,
};
