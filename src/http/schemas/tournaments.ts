/** TypeBox schemas of the tournament routes and the board list (§18): validation, serialization and OpenAPI. */
import Type from 'typebox';
import { BoardFieldsSchema } from '../../core/leaderboards/board-record.js';
import { Nullable } from '../../core/nullable-schema.js';

const { slug, name, type, sort, reset } = BoardFieldsSchema.properties;

export const JoinSchema = Type.Object({
  joined: Type.Literal(true),
  participants: Type.Integer({
    description:
      'join_required boards: how many joined the current period (the caller included); other boards: how many ' +
      'players have a stat in it',
  }),
});

export const BoardListSchema = Type.Object({
  leaderboards: Type.Array(
    Type.Object({
      slug,
      name,
      type,
      sort,
      reset,
      period: Type.Object({ start: Type.String(), end: Nullable(Type.String()) }),
      next_reset_at: Nullable(Type.String({ description: 'When the current period ends; null for reset none' })),
      join_required: Type.Boolean(),
      joined: Type.Boolean({ description: 'The caller joined the current period; false where no join is required' }),
    }),
  ),
});

/** Route descriptions for the OpenAPI document. */
export const tournamentRouteDescriptions = {
  list:
    'Every leaderboard of the project by slug, for the caller: `{leaderboards: [{slug, name, type, sort, reset, ' +
    'period: {start, end}, next_reset_at, join_required, joined}]}`.',
  join:
    'Joins the caller to the current period of a tournament (a board with `join_required`): 200 `{joined: true, ' +
    'participants}`, the same for a member; 409 `Tournament is full` once `max_participants` joined the period. ' +
    'On a board without `join_required` nothing is recorded (200). Joins are per period: a reset empties them.',
};
