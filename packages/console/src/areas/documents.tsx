/** Documents (§13): collections and documents as a paged tree, a JSON editor, new/delete, and the query runner. */
import { useEffect, useState } from 'preact/hooks';
import { api, encodePath, query } from '../api.js';
import { Dialog, ErrorAlert, Pager, parseJson, pretty, ReadOnly, useAction, useLoad, useProject } from '../ui.js';
import { TtlSetting } from './ttl-setting.js';

interface Doc {
  id: string;
  path: string;
  data: Record<string, unknown>;
  collections?: string[];
}
const PAGE_SIZE = 20;

function Collections(props: { parent: string; selected: string | null; onSelect(name: string): void }) {
  const { orgId, projectId } = useProject();
  const [page, setPage] = useState(1);
  const listing = useLoad(
    () =>
      api<{ collections: string[]; total: number }>(
        'GET',
        `/document-store/${orgId}/${projectId}/collections${query({ parent_path: props.parent, page, page_size: PAGE_SIZE })}`,
      ),
    [props.parent, page],
  );
  return (
    <section aria-label="Collections">
      <h3>Collections {props.parent ? `under ${props.parent}` : ''}</h3>
      <ErrorAlert error={listing.error} />
      <ul>
        {(listing.data?.collections ?? []).map((name) => (
          <li key={name}>
            <button type="button" aria-pressed={props.selected === name} onClick={() => props.onSelect(name)}>
              {name}
            </button>
          </li>
        ))}
      </ul>
      <Pager label="Collections" page={page} pageSize={PAGE_SIZE} total={listing.data?.total ?? 0} onPage={setPage} />
    </section>
  );
}

function Documents(props: { parent: string; collection: string; selected: string | null; onOpen(path: string): void }) {
  const { orgId, projectId } = useProject();
  const [page, setPage] = useState(1);
  const listing = useLoad(
    () =>
      api<{ documents: Doc[]; total: number }>(
        'GET',
        `/document-store/${orgId}/${projectId}/collections/${encodeURIComponent(props.collection)}${query({ parent_path: props.parent, page, page_size: PAGE_SIZE })}`,
      ),
    [props.parent, props.collection, page],
  );
  return (
    <section aria-label="Documents">
      <h3>Documents in {props.collection}</h3>
      <TtlSetting collection={props.collection} />
      <ErrorAlert error={listing.error} />
      <ul>
        {(listing.data?.documents ?? []).map((doc) => (
          <li key={doc.path}>
            <button type="button" aria-pressed={props.selected === doc.path} onClick={() => props.onOpen(doc.path)}>
              {doc.path.split('/').pop()}
            </button>
          </li>
        ))}
      </ul>
      <Pager label="Documents" page={page} pageSize={PAGE_SIZE} total={listing.data?.total ?? 0} onPage={setPage} />
    </section>
  );
}

function Editor(props: { path: string; onDeleted(): void; onBrowse(parent: string, collection: string): void }) {
  const { orgId, projectId, can } = useProject();
  const url = `/document-store/${orgId}/${projectId}/docs/${encodePath(props.path)}`;
  const doc = useLoad(() => api<Doc>('GET', url), [url]);
  const [text, setText] = useState('');
  const [saved, setSaved] = useState('');
  const action = useAction();
  useEffect(() => {
    if (doc.data) setText(pretty(doc.data.data));
  }, [doc.data]);
  const save = () =>
    action.run(async () => {
      await api('PUT', url, { data: parseJson(text, 'Document JSON') });
      setSaved(`Saved ${props.path}`);
    });
  const remove = () =>
    action.run(async () => {
      await api('DELETE', url);
      props.onDeleted();
    });
  return (
    <section aria-label="Document" class="editor">
      <h3>{props.path}</h3>
      <ErrorAlert error={doc.error} />
      <label>
        Document JSON
        <textarea
          aria-label="Document JSON"
          rows={14}
          value={text}
          readOnly={!can('document.manage')}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      {can('document.manage') ? (
        <div class="actions">
          <button type="button" onClick={save} disabled={action.busy}>
            Save
          </button>
          <button type="button" class="danger" onClick={remove} disabled={action.busy}>
            Delete document
          </button>
        </div>
      ) : (
        <ReadOnly what="documents" />
      )}
      <ErrorAlert error={action.error} />
      {saved && !action.error ? <p role="status">{saved}</p> : null}
      {(doc.data?.collections ?? []).length > 0 ? (
        <p>
          Child collections:{' '}
          {doc.data?.collections?.map((name) => (
            <button key={name} type="button" onClick={() => props.onBrowse(props.path, name)}>
              {name}
            </button>
          ))}
        </p>
      ) : null}
    </section>
  );
}

function NewDocument(props: { onClose(): void; onCreated(path: string): void }) {
  const { orgId, projectId } = useProject();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const path = String(form.get('path') ?? '');
    void action.run(async () => {
      const data = parseJson(String(form.get('json') ?? '{}'), 'JSON');
      await api('PUT', `/document-store/${orgId}/${projectId}/docs/${encodePath(path)}`, { data });
      props.onCreated(path.replace(/^\/+|\/+$/g, ''));
    });
  };
  return (
    <Dialog title="New document" onClose={props.onClose}>
      <form onSubmit={submit}>
        <label>
          Path
          <input name="path" required placeholder="heroes/ann" />
        </label>
        <label>
          JSON
          <textarea aria-label="JSON" name="json" rows={6} defaultValue="{}" />
        </label>
        <ErrorAlert error={action.error} />
        <div class="actions">
          <button type="submit">Create</button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function QueryRunner() {
  const { admin } = useProject();
  const action = useAction();
  const [rows, setRows] = useState<Doc[] | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const where = String(form.get('where') ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    const collection = encodeURIComponent(String(form.get('collection') ?? ''));
    const params = query({
      where,
      order_by: String(form.get('order_by') ?? ''),
      limit: String(form.get('limit') ?? ''),
    });
    void action.run(async () =>
      setRows((await api<{ documents: Doc[] }>('GET', `${admin}/query/${collection}${params}`)).documents),
    );
  };
  const fields = [...new Set((rows ?? []).flatMap((row) => Object.keys(row.data)))].slice(0, 8);
  return (
    <section aria-label="Query">
      <h2>Query</h2>
      <form onSubmit={submit} class="query">
        <label>
          Collection
          <input name="collection" required />
        </label>
        <label>
          Where
          <textarea aria-label="Where" name="where" rows={3} placeholder="level__gte:2" />
        </label>
        <label>
          Order by
          <input name="order_by" placeholder="-level" />
        </label>
        <label>
          Limit
          <input name="limit" type="number" min={1} max={10000} />
        </label>
        <button type="submit">Run</button>
      </form>
      <ErrorAlert error={action.error} />
      {rows ? (
        <table aria-label="Query result">
          <thead>
            <tr>
              <th scope="col">Path</th>
              {fields.map((f) => (
                <th key={f} scope="col">
                  {f}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.path}>
                <td>{row.path}</td>
                {fields.map((f) => (
                  <td key={f}>{row.data[f] === undefined ? '' : JSON.stringify(row.data[f])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

export function DocumentsArea() {
  const { can } = useProject();
  const [parent, setParent] = useState('');
  const [collection, setCollection] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [generation, setGeneration] = useState(0);
  const browse = (nextParent: string, name: string | null) => {
    setParent(nextParent);
    setCollection(name);
    setOpen(null);
  };
  return (
    <>
      <h2>Documents</h2>
      <div class="actions">
        {parent ? (
          <button type="button" onClick={() => browse('', null)}>
            Back to the root
          </button>
        ) : null}
        {can('document.manage') ? (
          <button type="button" onClick={() => setCreating(true)}>
            New document
          </button>
        ) : null}
      </div>
      <div class="columns" key={generation}>
        <Collections parent={parent} selected={collection} onSelect={(name) => browse(parent, name)} />
        {collection ? <Documents parent={parent} collection={collection} selected={open} onOpen={setOpen} /> : null}
        {open ? (
          <Editor
            path={open}
            onDeleted={() => {
              setOpen(null);
              setGeneration((n) => n + 1);
            }}
            onBrowse={browse}
          />
        ) : null}
      </div>
      {creating ? (
        <NewDocument
          onClose={() => setCreating(false)}
          onCreated={(path) => {
            setCreating(false);
            const segments = path.split('/');
            browse(segments.slice(0, -2).join('/'), segments[segments.length - 2] ?? null);
            setOpen(path);
            setGeneration((n) => n + 1);
          }}
        />
      ) : null}
      <QueryRunner />
    </>
  );
}
