/** TypeBox schemas of the access rules admin routes (§9 Management). */
import Type from 'typebox';
import { MAX_ID } from '../../core/admin/admin-service.js';

const RuleSchema = Type.Object({
  match: Type.String({ description: 'Path pattern: literals, `{name}`, last `{name=**}`' }),
  allow: Type.Record(Type.String(), Type.String(), { description: 'CEL expression per op' }),
});

/** A valid ruleset as stored and answered. */
export const RulesetSchema = Type.Object({
  documents: Type.Array(RuleSchema),
  realtime: Type.Array(RuleSchema),
});

/** Any JSON object: a ruleset to validate (invalid → 400 `<where>: <problem>`). */
const RulesInput = Type.Record(Type.String(), Type.Unknown(), {
  description: '`{documents: [Rule], realtime: [Rule]}`; a missing area counts as `[]`',
});

export const RulesStateSchema = Type.Object({
  rules: RulesetSchema,
  revision: Type.Integer({ description: '0 (with the open ruleset) when the project never set rules' }),
  updated_at: Type.Union([Type.String({ description: 'ISO 8601 UTC with milliseconds' }), Type.Null()]),
});

export const PutRulesBody = Type.Object({ rules: RulesInput });

export const RulesRevisionsSchema = Type.Object({
  revisions: Type.Array(Type.Object({ revision: Type.Integer(), updated_at: Type.String(), rules: RulesetSchema }), {
    description: 'Newest first; revision 0 is never listed',
  }),
});

const RuleTestCaseSchema = Type.Object({
  area: Type.Union([Type.Literal('documents'), Type.Literal('realtime')]),
  method: Type.String({ description: 'documents: get, list, create, update, delete; realtime: read, write' }),
  path: Type.String({ description: 'A document path, or a realtime path (normalized like every request path)' }),
  user_id: Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'The user the operation runs as; unknown → 422' }),
  data: Type.Optional(
    Type.Unknown({ description: 'What a write sends: documents `request.resource.data`, realtime the value' }),
  ),
  existing: Type.Optional(
    Type.Unknown({ description: 'Replaces the stored data or value for the simulation; null = absent' }),
  ),
});

export const TestRulesBody = Type.Object({
  rules: Type.Optional(RulesInput),
  cases: Type.Array(RuleTestCaseSchema, { maxItems: 1000 }),
});

export const RuleTestResultsSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      allowed: Type.Boolean(),
      rule: Type.Union([Type.Integer(), Type.Null()], { description: 'Lowest index of a granting rule in its area' }),
    }),
  ),
});
