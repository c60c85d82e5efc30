// Small shared pieces: loading and acting with progress and the API's errors, labelled fields, tables.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from './api';

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined) return null;
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  );
}

export function Busy({ label }: { label: string }) {
  return (
    <p class="busy" role="status" aria-live="polite">
      <progress aria-label={label} /> {label}…
    </p>
  );
}

/** Loads on mount and when `deps` change; `reload` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const reload = useCallback(() => {
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => setState({ data, loading: false }),
      (error: unknown) => setState({ error, loading: false }),
    );
  }, deps);
  useEffect(reload, [reload]);
  return { ...state, reload };
}

/** One long action at a time: `run` shows its progress, then its error or clears it. */
export function useAction() {
  const [busy, setBusy] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  async function run<T>(label: string, act: () => Promise<T>): Promise<T | undefined> {
    setBusy(label);
    setError(undefined);
    try {
      return await act();
    } catch (failure) {
      setError(failure);
      return undefined;
    } finally {
      setBusy(undefined);
    }
  }
  const status = (
    <>
      {busy && <Busy label={busy} />}
      <ErrorMessage error={error} />
    </>
  );
  return { run, busy, status };
}

export function Loaded<T>({
  state,
  label,
  children,
}: {
  state: { data?: T; error?: unknown; loading: boolean };
  label: string;
  children: (data: T) => ComponentChildren;
}) {
  return (
    <>
      {state.loading && <Busy label={`Loading ${label}`} />}
      <ErrorMessage error={state.error} />
      {state.data !== undefined && children(state.data)}
    </>
  );
}

export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: every caller passes its control as children
    <label class="field">
      <span>{label}</span>
      {children}
      {hint && <small>{hint}</small>}
    </label>
  );
}

/** A labelled choice of one of `choices`; `any` adds a first, empty choice (no filter). */
export function ChoiceField({
  label,
  value,
  choices,
  any,
  onChange,
}: {
  label: string;
  value: string;
  choices: readonly string[];
  any?: boolean;
  onChange(event: { currentTarget: { value: string } }): void;
}) {
  return (
    <Field label={label}>
      <select value={value} onChange={onChange}>
        {any && <option value="">any</option>}
        {choices.map((name) => (
          <option>{name}</option>
        ))}
      </select>
    </Field>
  );
}

export function Table<T>({
  caption,
  rows,
  columns,
  empty = 'Nothing yet.',
}: {
  caption: string;
  rows: T[];
  columns: [string, (row: T) => ComponentChildren][];
  empty?: string;
}) {
  if (rows.length === 0) return <p class="empty">{empty}</p>;
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map(([title]) => (
            <th scope="col">{title}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr>
            {columns.map(([, cell]) => (
              <td>{cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Pager({ offset, limit, total, onPage }: { offset: number; limit: number; total?: number; onPage(offset: number): void }) {
  const last = total === undefined ? undefined : Math.max(0, total - 1);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>{total === undefined ? `from ${offset + 1}` : `${Math.min(offset + 1, total)}–${Math.min(offset + limit, total)} of ${total}`}</span>
      <button type="button" disabled={last !== undefined && offset + limit > last} onClick={() => onPage(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

/** A run's page, named by its id. */
export const RunLink = ({ executionId }: { executionId: string }) => <a href={`#/runs/${encodeURIComponent(executionId)}`}>{executionId}</a>;

/** Parses a JSON text field, naming the field when it is not JSON. */
export function parseJson(label: string, text: string): unknown {
  try {
    return text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    throw new Error(`${label} is not valid JSON`);
  }
}

export const text = (value: unknown) => (value === undefined || value === null ? '–' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** Calls `tick` every `ms` until it answers true (or the component goes). */
export function usePolling(tick: () => Promise<boolean>, ms: number, deps: unknown[]) {
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const step = async () => {
      const done = await tick().catch(() => true);
      if (!stopped && !done) timer = setTimeout(step, ms);
    };
    void step();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, deps);
}

/** API records as the pages render them: fields read by name, shapes owned by the typed client. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
// biome-ignore lint/suspicious/noExplicitAny: API answers are read loosely, the typed client checks the requests
export type Rec = Record<string, any>;

/** An average of reviews; an item nobody reviewed has no rating rather than a zero. */
export const rating = (value: unknown, count: unknown) =>
  typeof count === 'number' && count > 0 && typeof value === 'number' ? `${value.toFixed(1)} / 5 (${count} review${count === 1 ? '' : 's'})` : 'no ratings';
