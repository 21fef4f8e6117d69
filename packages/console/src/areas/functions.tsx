/**
 * Server functions (§16): the modules loaded for the project and each function's calls by outcome,
 * as the instance that answered counted them. Read-only: functions are the operator's files.
 */
import { api } from '../api.js';
import { ErrorAlert, useLoad, useProject } from '../ui.js';

/** A module as the API lists it: its file and a list of names per kind (`rpc`, `before`, and kinds to come). */
interface FunctionModule {
  file: string;
  [kind: string]: string | string[];
}
type Outcome = 'ok' | 'rejected' | 'failed' | 'timed_out';
interface CallCount {
  name: string;
  outcome: Outcome;
  count: number;
}
interface ProjectFunctions {
  modules: FunctionModule[];
  calls: CallCount[];
}

/** One function of the table: what it is called in the counts, its kind and its module. */
interface FunctionRow {
  name: string;
  kind: string;
  file: string;
}

/** The kinds of a module and their names, in the API's order (`rpc` first); the file is no kind. */
const kindsOf = (module: FunctionModule): [string, string[]][] =>
  Object.entries(module).filter((entry): entry is [string, string[]] => Array.isArray(entry[1]));

/**
 * Every function of the modules, then any name the counts hold that no module lists (kept, so no
 * call is hidden). An RPC is counted under its name, another kind as `<kind>:<name>`.
 */
function functionRows(data: ProjectFunctions): FunctionRow[] {
  const rows = data.modules.flatMap((module) =>
    kindsOf(module).flatMap(([kind, names]) =>
      names.map((name) => ({ name: kind === 'rpc' ? name : `${kind}:${name}`, kind, file: module.file })),
    ),
  );
  const listed = new Set(rows.map((row) => row.name));
  for (const { name } of data.calls) {
    if (listed.has(name)) continue;
    listed.add(name);
    rows.push({ name, kind: name.includes(':') ? (name.split(':')[0] ?? '') : 'rpc', file: '—' });
  }
  return rows;
}

const OUTCOMES: [Outcome, string][] = [
  ['ok', 'OK'],
  ['rejected', 'Rejected'],
  ['failed', 'Failed'],
  ['timed_out', 'Timed out'],
];

function Functions({ data }: { data: ProjectFunctions }) {
  const count = (name: string, outcome?: Outcome) =>
    data.calls
      .filter((c) => c.name === name && (outcome === undefined || c.outcome === outcome))
      .reduce((sum, c) => sum + c.count, 0);
  const rows = functionRows(data);
  if (rows.length === 0) return <p class="note">No server functions are loaded for this project.</p>;
  return (
    <table aria-label="Functions">
      <thead>
        <tr>
          <th scope="col">Function</th>
          <th scope="col">Kind</th>
          <th scope="col">Module</th>
          <th scope="col">Calls</th>
          {OUTCOMES.map(([outcome, label]) => (
            <th key={outcome} scope="col">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.name}>
            <td>
              <code>{row.name}</code>
            </td>
            <td>{row.kind}</td>
            <td>{row.file}</td>
            <td>{count(row.name)}</td>
            {OUTCOMES.map(([outcome]) => (
              <td key={outcome}>{count(row.name, outcome)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Modules({ modules }: { modules: FunctionModule[] }) {
  return (
    <section aria-label="Modules">
      <h3>Modules</h3>
      <ul>
        {modules.map((module) => (
          <li key={module.file}>
            <code>{module.file}</code>
            {kindsOf(module).map(([kind, names]) => (
              <span key={kind}>
                {' '}
                · {kind}: {names.length === 0 ? '—' : names.join(', ')}
              </span>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function FunctionsArea() {
  const { admin } = useProject();
  const loaded = useLoad(() => api<ProjectFunctions>('GET', `${admin}/functions`), [admin]);
  return (
    <>
      <h2>Functions</h2>
      <section aria-label="Function calls">
        <p class="note">
          Calls counted by the instance that answered, since it started (each instance of a cluster counts its own).
        </p>
        <button type="button" onClick={loaded.reload}>
          Refresh
        </button>
        <ErrorAlert error={loaded.error} />
        {loaded.data ? <Functions data={loaded.data} /> : null}
      </section>
      {loaded.data && loaded.data.modules.length > 0 ? <Modules modules={loaded.data.modules} /> : null}
    </>
  );
}
