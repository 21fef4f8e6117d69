/** Users and roles (§13): a paged list with search, editing profile and roles, disabling and enabling. */
import { useState } from 'preact/hooks';
import { api, query } from '../api.js';
import { Dialog, ErrorAlert, Pager, ReadOnly, useAction, useLoad, useProject } from '../ui.js';

interface User {
  id: number;
  username: string;
  nickname: string;
  avatar_url: string | null;
  roles: string[];
  disabled: boolean;
}
const PAGE_SIZE = 20;

function EditUser(props: { user: User; roles: string[]; onClose(): void; onSaved(): void }) {
  const { admin } = useProject();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    void action.run(async () => {
      await api('PATCH', `${admin}/users/${props.user.id}`, {
        nickname: String(form.get('nickname') ?? ''),
        avatar_url: String(form.get('avatar_url') ?? '') || null,
        roles: form.getAll('roles').map(String),
        disabled: form.get('disabled') === 'on',
      });
      props.onSaved();
    });
  };
  const roles = [...new Set([...props.roles, ...props.user.roles])];
  return (
    <Dialog title={`Edit user ${props.user.username}`} onClose={props.onClose}>
      <form onSubmit={submit}>
        <label>
          Nickname
          <input name="nickname" required defaultValue={props.user.nickname} />
        </label>
        <label>
          Avatar URL
          <input name="avatar_url" defaultValue={props.user.avatar_url ?? ''} />
        </label>
        <fieldset>
          <legend>Roles</legend>
          {roles.map((role) => (
            <label key={role} class="inline">
              <input type="checkbox" name="roles" value={role} defaultChecked={props.user.roles.includes(role)} />{' '}
              {role}
            </label>
          ))}
        </fieldset>
        <label class="inline">
          <input type="checkbox" name="disabled" defaultChecked={props.user.disabled} /> Disabled
        </label>
        <ErrorAlert error={action.error} />
        <div class="actions">
          <button type="submit">Save user</button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function UsersArea() {
  const { admin, can } = useProject();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<User | null>(null);
  const users = useLoad(
    () => api<{ users: User[]; total: number }>('GET', `${admin}/users${query({ page, page_size: PAGE_SIZE })}`),
    [admin, page],
  );
  const roles = useLoad(() => api<{ roles: { name: string }[] }>('GET', `${admin}/roles`), [admin]);
  const found = useLoad(
    async () => (/^\d+$/.test(search) ? [await api<User>('GET', `${admin}/users/${search}`)] : null),
    [admin, search],
  );
  const toggle = useAction();
  const needle = search.toLowerCase();
  const shown =
    found.data ??
    (users.data?.users ?? []).filter(
      (u) => !needle || u.username.toLowerCase().includes(needle) || u.nickname.toLowerCase().includes(needle),
    );
  const manage = can('user.manage');
  return (
    <>
      <h2>Users</h2>
      <label>
        Search
        <input
          type="search"
          value={search}
          placeholder="username, nickname or id"
          onInput={(e) => setSearch(e.currentTarget.value.trim())}
        />
      </label>
      <ErrorAlert error={users.error ?? (/^\d+$/.test(search) ? found.error : null)} />
      {manage ? null : <ReadOnly what="users" />}
      <table aria-label="Users">
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Username</th>
            <th scope="col">Nickname</th>
            <th scope="col">Roles</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((user) => (
            <tr key={user.id}>
              <td>{user.id}</td>
              <td>{user.username}</td>
              <td>{user.nickname}</td>
              <td>{user.roles.join(', ')}</td>
              <td>{user.disabled ? 'disabled' : 'active'}</td>
              <td>
                {manage ? (
                  <>
                    <button type="button" onClick={() => setEditing(user)} aria-label={`Edit ${user.username}`}>
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${user.username}`}
                      onClick={() =>
                        toggle.run(async () => {
                          await api('PATCH', `${admin}/users/${user.id}`, { disabled: !user.disabled });
                          users.reload();
                          found.reload();
                        })
                      }
                    >
                      {user.disabled ? 'Enable' : 'Disable'}
                    </button>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorAlert error={toggle.error} />
      <Pager label="Users" page={page} pageSize={PAGE_SIZE} total={users.data?.total ?? 0} onPage={setPage} />
      {editing ? (
        <EditUser
          user={editing}
          roles={(roles.data?.roles ?? []).map((r) => r.name)}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            users.reload();
            found.reload();
          }}
        />
      ) : null}
    </>
  );
}
