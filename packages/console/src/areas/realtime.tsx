/**
 * The realtime tree (§13): level by level (`shallow`), a value editor, live by default. Live
 * means the level and value are read again every 500 ms, so a change shows within 1 s.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, encodePath } from '../api.js';
import { ErrorAlert, parseJson, pretty, ReadOnly, useAction, useProject } from '../ui.js';

const POLL_MS = 500;

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
    void read();
    const timer = live ? setInterval(read, POLL_MS) : undefined;
    return () => {
      stopped = true;
      clearInterval(timer);
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
