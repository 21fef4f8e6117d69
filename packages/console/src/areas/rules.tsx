/** Rules (§13): the ruleset editor with its validation error beside it, test cases before saving, rollback. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorAlert, parseJson, pretty, ReadOnly, useAction, useLoad, useProject } from '../ui.js';

interface RulesState {
  rules: unknown;
  revision: number;
  updated_at: string | null;
}
interface TestCase {
  area: string;
  method: string;
  path: string;
  user_id: number;
}
const EXAMPLE_CASES = [{ area: 'documents', method: 'get', path: 'users/1', user_id: 1 }];

export function RulesArea() {
  const { admin, can } = useProject();
  const current = useLoad(() => api<RulesState>('GET', `${admin}/rules`), [admin]);
  const revisions = useLoad(
    () => api<{ revisions: RulesState[] }>('GET', `${admin}/rules/revisions`),
    [admin, current.data?.revision],
  );
  const [text, setText] = useState('');
  const [cases, setCases] = useState(pretty(EXAMPLE_CASES));
  const [results, setResults] = useState<{ allowed: boolean; rule: number | null }[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const editor = useAction();
  const tests = useAction();
  const rollback = useAction();
  useEffect(() => {
    if (current.data) setText(pretty(current.data.rules));
  }, [current.data]);
  const manage = can('rules.manage');

  const check = () =>
    editor.run(async () => {
      await api('POST', `${admin}/rules/test`, { rules: parseJson(text, 'Ruleset'), cases: [] });
      setStatus('The ruleset is valid.');
    });
  const save = () =>
    editor.run(async () => {
      const saved = await api<RulesState>('PUT', `${admin}/rules`, { rules: parseJson(text, 'Ruleset') });
      current.setData(saved);
      setStatus(`Saved as revision ${saved.revision}.`);
    });
  const run = () =>
    tests.run(async () => {
      const body = { rules: parseJson(text, 'Ruleset'), cases: parseJson(cases, 'Test cases') };
      setResults(
        (await api<{ results: { allowed: boolean; rule: number | null }[] }>('POST', `${admin}/rules/test`, body))
          .results,
      );
    });
  let parsedCases: TestCase[] = [];
  try {
    parsedCases = JSON.parse(cases) as TestCase[];
  } catch {
    parsedCases = [];
  }
  return (
    <>
      <h2>Rules</h2>
      <ErrorAlert error={current.error} />
      <p>
        Revision {current.data?.revision ?? '…'}
        {current.data?.updated_at ? `, saved ${current.data.updated_at}` : ''}
      </p>
      <div class="columns">
        <section aria-label="Ruleset editor" class="editor">
          <label>
            Ruleset
            <textarea
              aria-label="Ruleset"
              rows={18}
              value={text}
              aria-invalid={editor.error ? 'true' : undefined}
              onInput={(e) => {
                setText(e.currentTarget.value);
                setStatus(null);
              }}
            />
          </label>
          <ErrorAlert error={editor.error} />
          {status && !editor.error ? <p role="status">{status}</p> : null}
          <div class="actions">
            <button type="button" onClick={check}>
              Check
            </button>
            {manage ? (
              <button type="button" onClick={save}>
                Save rules
              </button>
            ) : null}
          </div>
          {manage ? null : <ReadOnly what="the rules (you can check and test them)" />}
        </section>
        <section aria-label="Rule tests">
          <label>
            Test cases
            <textarea aria-label="Test cases" rows={8} value={cases} onInput={(e) => setCases(e.currentTarget.value)} />
          </label>
          <button type="button" onClick={run}>
            Run tests
          </button>
          <ErrorAlert error={tests.error} />
          {results ? (
            <table aria-label="Test results">
              <thead>
                <tr>
                  <th scope="col">Case</th>
                  <th scope="col">Allowed</th>
                  <th scope="col">Rule</th>
                </tr>
              </thead>
              <tbody>
                {results.map((r, i) => {
                  const c = parsedCases[i];
                  return (
                    <tr key={`${i}-${c?.path}`}>
                      <td>{c ? `${c.area} ${c.method} ${c.path} as ${c.user_id}` : i}</td>
                      <td>{r.allowed ? 'allowed' : 'denied'}</td>
                      <td>{r.rule ?? '–'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          ) : null}
        </section>
      </div>
      <section aria-label="Revisions">
        <h3>Revisions</h3>
        <ErrorAlert error={revisions.error ?? rollback.error} />
        <ul>
          {(revisions.data?.revisions ?? []).map((r) => (
            <li key={r.revision}>
              Revision {r.revision} ({r.updated_at}){' '}
              <button type="button" onClick={() => setText(pretty(r.rules))}>
                Load revision {r.revision}
              </button>
              {manage && r.revision !== current.data?.revision ? (
                <button
                  type="button"
                  onClick={() =>
                    rollback.run(async () => {
                      const saved = await api<RulesState>('PUT', `${admin}/rules`, { rules: r.rules });
                      current.setData(saved);
                      setStatus(`Rolled back to revision ${r.revision} as revision ${saved.revision}.`);
                    })
                  }
                >
                  Roll back to revision {r.revision}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
