/** Pieces every area uses: the project context, errors in place, pagers, dialogs and an async action hook. */
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** The admin roles' permissions, as §6 and the service's table give them. */
const ROLE_PERMISSIONS: Record<string, string[]> = {
  owner: ['document.view', 'document.manage', 'leaderboard.manage', 'user.manage', 'rules.manage', 'project.manage'],
  editor: ['document.view', 'document.manage', 'leaderboard.manage', 'user.manage', 'rules.manage'],
  viewer: ['document.view'],
};

export interface ProjectContext {
  orgId: number;
  projectId: number;
  role: string;
}

export const Project = createContext<ProjectContext>({ orgId: 0, projectId: 0, role: 'viewer' });

/** The current project, and whether the admin may do what needs `permission`. */
export function useProject() {
  const project = useContext(Project);
  const can = (permission: string) => (ROLE_PERMISSIONS[project.role] ?? []).includes(permission);
  return { ...project, can, admin: `/admin/projects/${project.projectId}` };
}

/** An API error (or none) shown where the action that caused it is. */
export function ErrorAlert({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p role="alert" class="error">
      {error}
    </p>
  );
}

/** Runs async actions, keeping the last error for an `ErrorAlert` next to the control. */
export function useAction() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, error, setError, busy };
}

/** Loads with `load` whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [tick, setTick] = useState(0);
  const action = useAction();
  useEffect(() => {
    let live = true;
    void action.run(load).then((value) => {
      if (live && value !== undefined) setData(value);
    });
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, setData, error: action.error, reload: () => setTick((n) => n + 1) };
}

/** Previous and Next page controls of a listing. */
export function Pager(props: {
  label: string;
  page: number;
  pageSize: number;
  total: number;
  onPage(page: number): void;
}) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous page
      </button>
      <span>
        Page {props.page} of {pages} ({props.total})
      </span>
      <button type="button" disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/**
 * A modal dialog: the native `<dialog>` makes the page behind it inert and closes on Escape (its
 * `close` event calls `onClose`); Tab and Shift+Tab wrap around its controls, so focus stays inside.
 */
export function Dialog(props: { title: string; onClose(): void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} aria-label={props.title} onClose={props.onClose} onKeyDown={(e) => trapTab(e, ref.current)}>
      <h2>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select, textarea, a[href], [tabindex="0"]';

/** Wraps Tab from the last control to the first (and Shift+Tab from the first to the last). */
function trapTab(event: KeyboardEvent, dialog: HTMLDialogElement | null): void {
  if (event.key !== 'Tab' || !dialog) return;
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (!first || !last) return;
  const edge = event.shiftKey ? first : last;
  if (document.activeElement === edge || !dialog.contains(document.activeElement)) {
    event.preventDefault();
    (event.shiftKey ? last : first).focus();
  }
}

/** Pretty JSON for an editor. */
export const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** Parses JSON typed by an admin; throws an Error naming the field. */
export function parseJson(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${field}: ${e instanceof Error ? e.message : 'invalid JSON'}`);
  }
}

/** A note shown instead of write controls to admins whose role cannot write. */
export function ReadOnly({ what }: { what: string }) {
  return <p class="note">Read-only: your role cannot change {what}.</p>;
}

/** A secret the API answers once: a read-only field to copy it from, and where to keep it. */
export function ShownOnce({ label, value, keep = 'store it now' }: { label: string; value: string; keep?: string }) {
  return (
    <div class="secret" role="status">
      <label>
        {label}
        <input readOnly value={value} size={Math.min(80, value.length + 2)} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <p class="note">Shown this once: {keep}.</p>
    </div>
  );
}
