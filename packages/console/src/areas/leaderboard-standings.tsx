/**
 * A board's standings as tables (§13), and §18's reads as the admin sees them: the window around
 * one user and a chosen set of users of a league.
 */
import { useState } from 'preact/hooks';
import { api, query } from '../api.js';
import { ErrorAlert, useAction } from '../ui.js';

export interface Standing {
  rank: number | null;
  user_id: number;
  stat_value: number | null;
  profile?: { nickname: string };
}
export interface Me {
  user_id: number;
  rank: number | null;
  stat_value: number | null;
}
export interface Listing {
  league: string;
  pagination: { limit: number; offset: number; total: number; has_more: boolean };
}

/** Standings rows; the row of `current` (the user a window is centred on) is marked. */
export function StandingsTable({ rows, label, current }: { rows: Standing[]; label: string; current?: number }) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Rank</th>
          <th scope="col">Player</th>
          <th scope="col">Stat</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.user_id} aria-current={row.user_id === current ? 'true' : undefined}>
            <td>{row.rank ?? '–'}</td>
            <td>
              {row.profile?.nickname ?? ''} ({row.user_id})
            </td>
            <td>{row.stat_value ?? '–'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `3, 9,12` as the API takes it (`3,9,12`); none is an error (the listing would show the whole league). */
function userIds(text: string): string {
  const ids = text
    .split(/[\s,]+/)
    .filter((id) => id !== '')
    .join(',');
  if (!ids) throw new Error('User ids: one or more user ids, separated by commas');
  return ids;
}

/**
 * §18's reads as the admin sees them: the window around one user (in that user's league, as a
 * game server's key reads it) and a chosen set of users of the league shown above, in rank order.
 */
export function PlayerViews({ base, league }: { base: string; league: string }) {
  const [around, setAround] = useState<{ league: string; me: Me; users: Standing[] } | null>(null);
  const [chosen, setChosen] = useState<(Listing & { users: Standing[] }) | null>(null);
  const near = useAction();
  const set = useAction();
  return (
    <>
      <h4>Around a user</h4>
      <form
        class="inline"
        aria-label="Around a user"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget as HTMLFormElement);
          void near.run(async () => {
            setAround(null);
            const params = { user_id: String(form.get('user_id')), radius: String(form.get('radius')) };
            setAround(await api('GET', `${base}/around${query({ ...params, expand: 'profile' })}`));
          });
        }}
      >
        <label>
          User id
          <input name="user_id" type="number" min={1} required />
        </label>
        <label>
          Radius
          <input name="radius" type="number" min={1} max={50} step={1} defaultValue="5" required />
        </label>
        <button type="submit">Show around</button>
        <ErrorAlert error={near.error} />
      </form>
      {around ? (
        <>
          <p>
            User {around.me.user_id} in league {around.league}:{' '}
            {around.me.rank === null ? 'no stat' : `rank ${around.me.rank}, stat ${around.me.stat_value}`}
          </p>
          <StandingsTable rows={around.users} label="Around user" current={around.me.user_id} />
        </>
      ) : null}
      <h4>Chosen users</h4>
      <form
        class="inline"
        aria-label="Chosen users"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget as HTMLFormElement);
          void set.run(async () => {
            setChosen(null);
            const ids = userIds(String(form.get('user_ids') ?? ''));
            setChosen(await api('GET', `${base}/users${query({ league, user_ids: ids, expand: 'profile' })}`));
          });
        }}
      >
        <label>
          User ids
          <input name="user_ids" placeholder="3, 9, 12" required />
        </label>
        <button type="submit">Show users</button>
        <ErrorAlert error={set.error} />
      </form>
      {chosen ? (
        <>
          <p>
            {chosen.users.length} of them in league {chosen.league}
          </p>
          <StandingsTable rows={chosen.users} label="Chosen users" />
        </>
      ) : null}
    </>
  );
}
