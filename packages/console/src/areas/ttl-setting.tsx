/** The TTL field of the collection the Documents view lists (§17): shown to every role, set and cleared by owners and editors. */
import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { ErrorAlert, useAction, useLoad, useProject } from '../ui.js';

interface Ttl {
  collection: string;
  field: string;
}

export function TtlSetting(props: { collection: string }) {
  const { admin, can } = useProject();
  const url = `${admin}/ttl/${encodeURIComponent(props.collection)}`;
  const setting = useLoad(async () => {
    try {
      return { ttl: await api<Ttl>('GET', url) };
    } catch (error) {
      // 404 `TTL not set`: the collection's documents never expire.
      if (error instanceof ApiError && error.status === 404) return { ttl: null };
      throw error;
    }
  }, [url]);
  const action = useAction();
  const [field, setField] = useState('');
  const current = setting.data?.ttl ?? null;
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api<Ttl>('PUT', url, { field });
      setting.reload();
    });
  };
  const clear = () =>
    void action.run(async () => {
      await api('DELETE', url);
      setting.reload();
    });
  return (
    <section aria-label="Expiring documents">
      <ErrorAlert error={setting.error} />
      <p>
        {current ? (
          <>
            Documents expire at <code>{current.field}</code> (epoch ms or an ISO 8601 time).
          </>
        ) : setting.data ? (
          'Documents of this collection never expire.'
        ) : null}
      </p>
      {can('document.manage') ? (
        <form onSubmit={save}>
          <label>
            TTL field
            <input
              name="ttl-field"
              placeholder={current?.field ?? 'expires_at'}
              value={field}
              onInput={(event) => setField((event.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" disabled={action.busy}>
            Set TTL
          </button>
          {current ? (
            <button type="button" disabled={action.busy} onClick={clear}>
              Clear TTL
            </button>
          ) : null}
          <ErrorAlert error={action.error} />
        </form>
      ) : null}
    </section>
  );
}
