/**
 * Leaderboards (§13): boards, create and edit (leagues, rewards, anti-cheat, tournament), standings,
 * the window around a user and a chosen set of users (§18), stats, reset, history.
 */
import { useState } from 'preact/hooks';
import { api, query } from '../api.js';
import { Dialog, ErrorAlert, parseJson, pretty, ReadOnly, useAction, useLoad, useProject } from '../ui.js';
import { type Listing, PlayerViews, type Standing, StandingsTable } from './leaderboard-standings.js';

interface Board {
  slug: string;
  name: string;
  description: string;
  type: string;
  sort: string;
  operator: string;
  reset: string;
  period: { start: string; end: string | null };
  leagues: { slug: string; name: string }[];
  rewards: unknown[];
  client_submit: boolean;
  stat_min: number | null;
  stat_max: number | null;
  join_required: boolean;
  max_participants: number | null;
  max_submissions: number | null;
  starts_at: string | null;
  ends_at: string | null;
}
const PAGE = 10;

const bound = (value: FormDataEntryValue | null) => (value === null || value === '' ? null : Number(value));
const instant = (value: FormDataEntryValue | null) => (value === null || value === '' ? null : String(value).trim());

/** The fields shared by create and edit, read from a form. */
function definition(form: FormData) {
  return {
    name: String(form.get('name') ?? ''),
    description: String(form.get('description') ?? ''),
    operator: String(form.get('operator') ?? 'best'),
    leagues: parseJson(String(form.get('leagues') || '[]'), 'Leagues'),
    rewards: parseJson(String(form.get('rewards') || '[]'), 'Rewards'),
    client_submit: form.get('client_submit') === 'on',
    stat_min: bound(form.get('stat_min')),
    stat_max: bound(form.get('stat_max')),
    join_required: form.get('join_required') === 'on',
    max_participants: bound(form.get('max_participants')),
    max_submissions: bound(form.get('max_submissions')),
    starts_at: instant(form.get('starts_at')),
    ends_at: instant(form.get('ends_at')),
  };
}

const select = (name: string, label: string, options: string[], value?: string) => (
  <label>
    {label}
    <select name={name} value={value} aria-label={label}>
      {options.map((o) => (
        <option key={o}>{o}</option>
      ))}
    </select>
  </label>
);

function DefinitionFields({ board }: { board?: Board }) {
  const leagues = board ? board.leagues : [{ slug: 'global', name: 'Global' }];
  return (
    <>
      <label>
        Name
        <input name="name" required defaultValue={board?.name} />
      </label>
      <label>
        Description
        <input name="description" defaultValue={board?.description} />
      </label>
      {select('operator', 'Operator', ['best', 'latest', 'increment'], board?.operator)}
      <label>
        Leagues
        <textarea aria-label="Leagues" name="leagues" rows={4} defaultValue={pretty(leagues)} />
      </label>
      <label>
        Rewards
        <textarea aria-label="Rewards" name="rewards" rows={3} defaultValue={pretty(board?.rewards ?? [])} />
      </label>
      <label class="inline">
        <input type="checkbox" name="client_submit" defaultChecked={board?.client_submit ?? true} /> Clients may submit
      </label>
      <label>
        Stat min
        <input name="stat_min" type="number" step="any" defaultValue={String(board?.stat_min ?? '')} />
      </label>
      <label>
        Stat max
        <input name="stat_max" type="number" step="any" defaultValue={String(board?.stat_max ?? '')} />
      </label>
      <label class="inline">
        <input type="checkbox" name="join_required" defaultChecked={board?.join_required ?? false} /> Players must join
        (tournament)
      </label>
      <label>
        Max participants
        <input
          name="max_participants"
          type="number"
          min="1"
          step="1"
          defaultValue={String(board?.max_participants ?? '')}
        />
      </label>
      <label>
        Max submissions per period
        <input
          name="max_submissions"
          type="number"
          min="1"
          step="1"
          defaultValue={String(board?.max_submissions ?? '')}
        />
      </label>
      <label>
        Starts at
        <input name="starts_at" placeholder="2026-12-01T18:00:00Z" defaultValue={board?.starts_at ?? ''} />
      </label>
      <label>
        Ends at
        <input name="ends_at" placeholder="2026-12-08T18:00:00Z" defaultValue={board?.ends_at ?? ''} />
      </label>
    </>
  );
}

function NewBoard(props: { onClose(): void; onCreated(slug: string): void }) {
  const { admin } = useProject();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    void action.run(async () => {
      const slug = String(form.get('slug') ?? '');
      const body = {
        slug,
        type: form.get('type'),
        sort: form.get('sort'),
        reset: form.get('reset'),
        ...definition(form),
      };
      await api('POST', `${admin}/leaderboards`, body);
      props.onCreated(slug);
    });
  };
  return (
    <Dialog title="New leaderboard" onClose={props.onClose}>
      <form onSubmit={submit} class="grid">
        <label>
          Slug
          <input name="slug" required />
        </label>
        {select('type', 'Type', ['CONTINUOUS', 'AT_RESET'])}
        {select('sort', 'Sort', ['desc', 'asc'])}
        {select('reset', 'Reset', ['none', 'daily', 'weekly', 'monthly'])}
        <DefinitionFields />
        <ErrorAlert error={action.error} />
        <div class="actions">
          <button type="submit">Create leaderboard</button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function BoardPanel({ board, onChanged }: { board: Board; onChanged(): void }) {
  const { admin, can } = useProject();
  const base = `${admin}/leaderboards/${encodeURIComponent(board.slug)}`;
  const manage = can('leaderboard.manage');
  const [league, setLeague] = useState(board.leagues[0]?.slug ?? '');
  const [offset, setOffset] = useState(0);
  const standings = useLoad(
    () =>
      api<Listing & { users: Standing[] }>(
        'GET',
        `${base}/users${query({ league, limit: PAGE, offset, expand: 'profile' })}`,
      ),
    [base, league, offset],
  );
  const [history, setHistory] = useState<(Listing & { standings: Standing[]; period: { start: string } }) | null>(null);
  const edit = useAction();
  const stat = useAction();
  const reset = useAction();
  const past = useAction();
  const [confirming, setConfirming] = useState(false);
  const page = standings.data?.pagination;
  return (
    <section aria-label={`Leaderboard ${board.slug}`}>
      <h3>
        {board.name} ({board.slug}) · {board.type} · {board.sort} · reset {board.reset}
      </h3>
      <label>
        League
        <select
          aria-label="League"
          value={league}
          onChange={(e) => {
            setLeague(e.currentTarget.value);
            setOffset(0);
          }}
        >
          {board.leagues.map((l) => (
            <option key={l.slug} value={l.slug}>
              {l.name} ({l.slug})
            </option>
          ))}
        </select>
      </label>
      <h4>Standings</h4>
      <ErrorAlert error={standings.error} />
      <StandingsTable rows={standings.data?.users ?? []} label="Standings" />
      <nav class="pager" aria-label="Standings pages">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous page
        </button>
        <span>
          {page
            ? `${page.total === 0 ? 0 : page.offset + 1}–${page.offset + (standings.data?.users.length ?? 0)} of ${page.total}`
            : ''}
        </span>
        <button type="button" disabled={!page?.has_more} onClick={() => setOffset(offset + PAGE)}>
          Next page
        </button>
      </nav>
      <PlayerViews base={base} league={league} />
      {manage ? (
        <form
          class="inline"
          aria-label="Submit a stat"
          onSubmit={(e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget as HTMLFormElement);
            void stat.run(async () => {
              await api('POST', `${base}/stats`, {
                user_id: Number(form.get('user_id')),
                value: Number(form.get('value')),
              });
              standings.reload();
            });
          }}
        >
          <label>
            User id
            <input name="user_id" type="number" min={1} required />
          </label>
          <label>
            Value
            <input name="value" type="number" step="any" required />
          </label>
          <button type="submit">Submit stat</button>
          <ErrorAlert error={stat.error} />
        </form>
      ) : null}
      <h4>History</h4>
      <button
        type="button"
        onClick={() =>
          past.run(async () =>
            setHistory(await api('GET', `${base}/history${query({ league, limit: 50, expand: 'profile' })}`)),
          )
        }
      >
        Show history
      </button>
      <ErrorAlert error={past.error} />
      {history ? (
        <>
          <p>Period from {history.period.start}</p>
          <StandingsTable rows={history.standings} label="History" />
        </>
      ) : null}
      {manage ? (
        <>
          <h4>Edit</h4>
          <form
            class="grid"
            aria-label="Edit leaderboard"
            onSubmit={(e) => {
              e.preventDefault();
              const form = new FormData(e.currentTarget as HTMLFormElement);
              void edit.run(async () => {
                await api('PATCH', base, definition(form));
                onChanged();
              });
            }}
          >
            <DefinitionFields board={board} />
            <ErrorAlert error={edit.error} />
            <button type="submit">Save leaderboard</button>
          </form>
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Reset now
          </button>
          <ErrorAlert error={reset.error} />
          {confirming ? (
            <Dialog title="Reset the leaderboard?" onClose={() => setConfirming(false)}>
              <p>The current period ends now; its standings are archived with rewards and entries are cleared.</p>
              <div class="actions">
                <button
                  type="button"
                  class="danger"
                  onClick={() =>
                    reset.run(async () => {
                      setConfirming(false);
                      await api('POST', `${base}/reset`, {});
                      setOffset(0);
                      standings.reload();
                      onChanged();
                    })
                  }
                >
                  Reset
                </button>
                <button type="button" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </div>
            </Dialog>
          ) : null}
        </>
      ) : (
        <ReadOnly what="leaderboards" />
      )}
    </section>
  );
}

export function LeaderboardsArea() {
  const { admin, can } = useProject();
  const boards = useLoad(() => api<{ leaderboards: Board[] }>('GET', `${admin}/leaderboards`), [admin]);
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const board = boards.data?.leaderboards.find((b) => b.slug === selected);
  return (
    <>
      <h2>Leaderboards</h2>
      {can('leaderboard.manage') ? (
        <button type="button" onClick={() => setCreating(true)}>
          New leaderboard
        </button>
      ) : null}
      <ErrorAlert error={boards.error} />
      <ul aria-label="Boards">
        {(boards.data?.leaderboards ?? []).map((b) => (
          <li key={b.slug}>
            <button type="button" aria-pressed={b.slug === selected} onClick={() => setSelected(b.slug)}>
              {b.name} ({b.slug})
            </button>
          </li>
        ))}
      </ul>
      {board ? (
        <BoardPanel key={`${board.slug}/${board.period.start}`} board={board} onChanged={boards.reload} />
      ) : null}
      {creating ? (
        <NewBoard
          onClose={() => setCreating(false)}
          onCreated={(slug) => {
            setCreating(false);
            setSelected(slug);
            boards.reload();
          }}
        />
      ) : null}
    </>
  );
}
