/** The console shell: sign-in, organisation and project, the area navigation (§13). */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, clearSession, loadSession, saveSession } from './api.js';
import { DocumentsArea } from './areas/documents.js';
import { FunctionsArea } from './areas/functions.js';
import { KeysArea } from './areas/keys.js';
import { LeaderboardsArea } from './areas/leaderboards.js';
import { RealtimeArea } from './areas/realtime.js';
import { RulesArea } from './areas/rules.js';
import { UsersArea } from './areas/users.js';
import { WebhooksArea } from './areas/webhooks.js';
import { ErrorAlert, Project, useAction, useLoad } from './ui.js';

interface Me {
  id: number;
  org_id: number;
  email: string;
  role: string;
}
interface ProjectRow {
  id: number;
  org_id: number;
  name: string;
}

const AREAS = [
  ['documents', 'Documents', DocumentsArea],
  ['realtime', 'Realtime', RealtimeArea],
  ['leaderboards', 'Leaderboards', LeaderboardsArea],
  ['users', 'Users', UsersArea],
  ['rules', 'Rules', RulesArea],
  ['keys', 'Keys', KeysArea],
  ['functions', 'Functions', FunctionsArea],
  ['webhooks', 'Webhooks', WebhooksArea],
] as const;

/** `#/projects/{id}/{area}` → its parts. */
function parseHash(hash: string): { projectId: number | null; area: string } {
  const match = /^#\/projects\/(\d+)(?:\/(\w+))?/.exec(hash);
  return { projectId: match ? Number(match[1]) : null, area: match?.[2] ?? 'documents' };
}

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

function SignIn({ onSignedIn }: { onSignedIn(): void }) {
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    void action.run(async () => {
      const token = await api<{ access_token: string; expires_in: number }>('POST', '/admin/auth/login', {
        email: form.get('email'),
        password: form.get('password'),
      });
      saveSession(token.access_token, token.expires_in);
      onSignedIn();
    });
  };
  return (
    <main class="signin">
      <h1>Client Data Service</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <button type="submit" disabled={action.busy}>
          Sign in
        </button>
        <ErrorAlert error={action.error} />
      </form>
    </main>
  );
}

function Shell({ onSignOut }: { onSignOut(): void }) {
  const hash = useHash();
  const me = useLoad(() => api<Me>('GET', '/admin/me'), []);
  const orgId = me.data?.org_id;
  const projects = useLoad(
    async () => (orgId ? (await api<{ projects: ProjectRow[] }>('GET', `/admin/orgs/${orgId}/projects`)).projects : []),
    [orgId],
  );
  const { projectId, area } = parseHash(hash);
  const list = projects.data ?? [];
  const project = list.find((p) => p.id === projectId);
  useEffect(() => {
    const first = list[0];
    if (!project && first) location.replace(`#/projects/${first.id}/${area}`);
  }, [project, list.length]);
  if (me.error || projects.error) return <ErrorAlert error={me.error ?? projects.error} />;
  if (!me.data || !project) return <p aria-busy="true">Loading…</p>;
  const current = AREAS.find(([slug]) => slug === area) ?? AREAS[0];
  const Area = current[2];
  return (
    <Project.Provider value={{ orgId: project.org_id, projectId: project.id, role: me.data.role }}>
      <header>
        <h1>{project.name}</h1>
        <label>
          Project
          <select
            aria-label="Project"
            value={String(project.id)}
            onChange={(e) => {
              location.hash = `#/projects/${(e.currentTarget as HTMLSelectElement).value}/${area}`;
            }}
          >
            {list.map((p) => (
              <option key={p.id} value={String(p.id)}>
                {p.name} ({p.id})
              </option>
            ))}
          </select>
        </label>
        <span class="who">
          {me.data.email} · {me.data.role} · organisation {me.data.org_id}
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Areas">
        {AREAS.map(([slug, label]) => (
          <a
            key={slug}
            href={`#/projects/${project.id}/${slug}`}
            aria-current={slug === current[0] ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      <main>
        <Area key={`${project.id}/${current[0]}`} />
      </main>
    </Project.Provider>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(loadSession() !== null);
  useEffect(() => {
    const out = () => setSignedIn(false);
    window.addEventListener('cds-signed-out', out);
    return () => window.removeEventListener('cds-signed-out', out);
  }, []);
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  return (
    <Shell
      onSignOut={() => {
        clearSession();
        setSignedIn(false);
      }}
    />
  );
}

const root = document.getElementById('app');
if (root) {
  render(<App />, root);
  // Rendered and listening: the moment the first-load figure (§13, printed by the browser test) ends.
  performance.mark('cds-console-interactive');
}
