/** Server keys and client credentials (§13): create, rotate, revoke; a new secret is shown once, read-only. */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorAlert, ReadOnly, ShownOnce, useAction, useLoad, useProject } from '../ui.js';

interface ServerKey {
  id: number;
  name: string;
  role: string;
  created_at: string;
}

function ServerKeys() {
  const { admin, can } = useProject();
  const keys = useLoad(() => api<{ server_keys: ServerKey[] }>('GET', `${admin}/server-keys`), [admin]);
  const [issued, setIssued] = useState<string | null>(null);
  const create = useAction();
  const revoke = useAction();
  const manage = can('document.manage');
  return (
    <section aria-label="Server keys">
      <h3>Server keys</h3>
      <ErrorAlert error={keys.error} />
      <table aria-label="Server key list">
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(keys.data?.server_keys ?? []).map((key) => (
            <tr key={key.id}>
              <td>{key.id}</td>
              <td>{key.name}</td>
              <td>{key.role}</td>
              <td>{key.created_at}</td>
              <td>
                {manage ? (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Revoke ${key.name}`}
                    onClick={() =>
                      revoke.run(async () => {
                        await api('DELETE', `${admin}/server-keys/${key.id}`);
                        keys.reload();
                      })
                    }
                  >
                    Revoke
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorAlert error={revoke.error} />
      {manage ? (
        <form
          class="inline"
          aria-label="New server key"
          onSubmit={(e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget as HTMLFormElement);
            void create.run(async () => {
              const made = await api<{ key: string }>('POST', `${admin}/server-keys`, {
                name: form.get('name'),
                role: form.get('role'),
              });
              setIssued(made.key);
              keys.reload();
            });
          }}
        >
          <label>
            Name
            <input name="name" required />
          </label>
          <label>
            Role
            <select name="role" aria-label="Role">
              <option>editor</option>
              <option>viewer</option>
            </select>
          </label>
          <button type="submit">Create key</button>
        </form>
      ) : (
        <ReadOnly what="server keys" />
      )}
      <ErrorAlert error={create.error} />
      {issued ? <ShownOnce label="Key" value={issued} /> : null}
    </section>
  );
}

function Clients() {
  const { admin, can } = useProject();
  const clients = useLoad(
    () => api<{ clients: { client_id: string; created_at: string }[] }>('GET', `${admin}/clients`),
    [admin],
  );
  const [secret, setSecret] = useState<{ client_id: string; client_secret: string } | null>(null);
  const action = useAction();
  const manage = can('project.manage');
  const issue = (url: string) =>
    action.run(async () => {
      setSecret(await api('POST', url, {}));
      clients.reload();
    });
  return (
    <section aria-label="Client credentials">
      <h3>Client credentials</h3>
      <ErrorAlert error={clients.error} />
      <ul>
        {(clients.data?.clients ?? []).map((client) => (
          <li key={client.client_id}>
            <code>{client.client_id}</code> (created {client.created_at}){' '}
            {manage ? (
              <button
                type="button"
                onClick={() => issue(`${admin}/clients/${encodeURIComponent(client.client_id)}/rotate`)}
              >
                Rotate secret of {client.client_id}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {manage ? (
        <button type="button" onClick={() => issue(`${admin}/clients`)}>
          New client
        </button>
      ) : (
        <ReadOnly what="client credentials" />
      )}
      <ErrorAlert error={action.error} />
      {secret ? (
        <>
          <p>Client id: {secret.client_id}</p>
          <ShownOnce label="Client secret" value={secret.client_secret} />
        </>
      ) : null}
    </section>
  );
}

export function KeysArea() {
  return (
    <>
      <h2>Keys</h2>
      <ServerKeys />
      <Clients />
    </>
  );
}
