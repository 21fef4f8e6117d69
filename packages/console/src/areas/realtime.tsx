/**
 * The realtime tree (§13): level by level (`shallow`), a value editor, live by default. Live
 * means a subscription to the path on the admin WebSocket (§4 protocol): each `update` has the
 * level and value read again (one read at a time), so a change shows as soon as it is committed.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, encodePath, loadSession } from '../api.js';
import { ErrorAlert, parseJson, pretty, ReadOnly, useAction, useProject } from '../ui.js';

/** Wait before opening the socket again after it dropped (a restart, a network change). */
const RECONNECT_MS = 1000;

/**
 * Calls `changed` after every commit under `path` until the returned stop is called, over
 * `GET {admin}/realtime/ws`; `onError` gets the socket's refusals. A dropped socket has the view
 * read once (its answer shows an outage, or signs an expired session out) and reconnects.
 */
function watchTree(admin: string, path: string, changed: () => void, onError: (message: string | null) => void) {
  let socket: WebSocket | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const connect = () => {
    const token = loadSession()?.token ?? '';
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(
      `${scheme}://${location.host}${admin}/realtime/ws?access_token=${encodeURIComponent(token)}`,
    );
    socket.onopen = () => socket?.send(JSON.stringify({ action: 'subscribe', path, id: 'view' }));
    socket.onmessage = (message) => {
      const event = JSON.parse(String(message.data)) as { event: string; message?: string };
      if (event.event === 'error') onError(event.message ?? 'Live updates failed');
      else if (event.event === 'init' || event.event === 'update') changed();
    };
    socket.onclose = () => {
      if (stopped) return;
      changed();
      timer = setTimeout(connect, RECONNECT_MS);
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    socket?.close();
  };
}

export function RealtimeArea() {
  const { admin, can } = useProject();
  const [path, setPath] = useState('');
  const [keys, setKeys] = useState<string[]>([]);
  const [value, setValue] = useState<unknown>(null);
  const [text, setText] = useState('null');
  const [dirty, setDirty] = useState(false);
  const [live, setLive] = useState(true);
  const [readError, setReadError] = useState<string | null>(null);
  const action = useAction();
  const url = `${admin}/realtime/db${path ? `/${encodePath(path)}` : ''}`;

  useEffect(() => {
    let stopped = false;
    const read = async () => {
      try {
        const [shallow, full] = await Promise.all([
          api<{ value: unknown }>('GET', `${url}?shallow=true`),
          api<{ value: unknown }>('GET', url),
        ]);
        if (stopped) return;
        const level = shallow.value;
        setKeys(level && typeof level === 'object' ? Object.keys(level).sort() : []);
        setValue(full.value);
        setReadError(null);
      } catch (e) {
        if (!stopped) setReadError(e instanceof Error ? e.message : String(e));
      }
    };
    // One read at a time; updates arriving meanwhile ask for one more read after it.
    let reading: Promise<void> | null = null;
    let again = false;
    const reread = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = read().finally(() => {
        reading = null;
        if (again && !stopped) {
          again = false;
          reread();
        }
      });
    };
    if (!live) void read();
    const stopWatching = live ? watchTree(admin, path, reread, setReadError) : undefined;
    return () => {
      stopped = true;
      stopWatching?.();
    };
  }, [url, live]);
  useEffect(() => {
    if (!dirty) setText(pretty(value));
  }, [value, dirty]);
  useEffect(() => setDirty(false), [url]);

  const segments = path ? path.split('/') : [];
  const save = () =>
    action.run(async () => {
      const written = await api<{ value: unknown }>('PUT', url, { value: parseJson(text, 'Value') });
      setValue(written.value);
      setDirty(false);
    });
  const remove = () =>
    action.run(async () => {
      await api('DELETE', url);
      setValue(null);
      setDirty(false);
    });
  return (
    <>
      <h2>Realtime</h2>
      <label class="inline">
        <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> Live
      </label>
      <nav aria-label="Realtime path" class="crumbs">
        <button type="button" onClick={() => setPath('')}>
          (root)
        </button>
        {segments.map((segment, i) => (
          <button
            key={segments.slice(0, i + 1).join('/')}
            type="button"
            onClick={() => setPath(segments.slice(0, i + 1).join('/'))}
          >
            {segment}
          </button>
        ))}
      </nav>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget as HTMLFormElement);
          setPath(String(form.get('path') ?? '').replace(/^\/+|\/+$/g, ''));
        }}
      >
        <label>
          Path
          <input name="path" value={path} key={path} />
        </label>
        <button type="submit">Go</button>
      </form>
      <ErrorAlert error={readError} />
      <div class="columns">
        <section aria-label="Children">
          <h3>Children of {path || 'the root'}</h3>
          <ul>
            {keys.map((key) => (
              <li key={key}>
                <button type="button" onClick={() => setPath(path ? `${path}/${key}` : key)}>
                  {key}
                </button>
              </li>
            ))}
          </ul>
        </section>
        <section aria-label="Value editor" class="editor">
          <label>
            Value
            <textarea
              aria-label="Value"
              rows={14}
              value={text}
              readOnly={!can('document.manage')}
              onInput={(e) => {
                setText(e.currentTarget.value);
                setDirty(true);
              }}
            />
          </label>
          {can('document.manage') ? (
            <div class="actions">
              <button type="button" onClick={save} disabled={action.busy}>
                Save value
              </button>
              <button type="button" class="danger" onClick={remove} disabled={action.busy || path === ''}>
                Delete path
              </button>
            </div>
          ) : (
            <ReadOnly what="the realtime tree" />
          )}
          <ErrorAlert error={action.error} />
        </section>
      </div>
    </>
  );
}
