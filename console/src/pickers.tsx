// Choosing an object by its name where the API wants its id (or an installed resource's name): the caller's scripts,
// flows and resource installations, loaded once per page.
import { api, unwrap } from './api';
import { ErrorMessage, Field, type Rec, useLoad } from './ui';

export interface Named {
  id: string;
  name: string;
}

export const useScripts = () =>
  useLoad(async (): Promise<Named[]> => {
    const data: Rec = await unwrap(api().POST('/api/sdk/v1/scripts/listScripts', { body: {} as never }));
    return ((data.scripts ?? []) as Rec[]).map((script) => ({ id: script.id, name: script.name }));
  });

export const useFlows = () =>
  useLoad(async (): Promise<Named[]> => {
    const data: Rec = await unwrap(api().POST('/api/sdk/v1/flows/searchFlows', { body: { limit: 100 } as never }));
    return (((data as Rec).flows ?? data) as Rec[]).map((flow) => ({ id: flow.id, name: flow.title }));
  });

/** Resources the caller installed, by name: what a script's `allowedResources` may name. */
export const useInstalledResources = () =>
  useLoad(async (): Promise<Named[]> => {
    const data: Rec = await unwrap(api().GET('/api/sdk/v1/resources/installations', { params: { query: { limit: 100 } as never } }));
    return ((data.installations ?? []) as Rec[]).filter((item) => item.resourceName).map((item) => ({ id: item.resourceId, name: item.resourceName }));
  });

/** The name of `id` among `items`, or the id itself while the list loads or when it is not there (another user's). */
export const nameOf = (items: Named[] | undefined, id: string | null | undefined) => (id ? (items?.find((item) => item.id === id)?.name ?? id) : undefined);

/** A select of names whose value is the chosen id; `empty` labels the no-choice option. Equal names show their id. */
export function NamePicker({
  label,
  hint,
  items,
  value,
  onChange,
  empty,
  required,
}: {
  label: string;
  hint?: string;
  items: { data?: Named[]; error?: unknown; loading: boolean };
  value: string;
  onChange(id: string): void;
  empty: string;
  required?: boolean;
}) {
  const list = items.data ?? [];
  const twice = new Set(list.filter((item, index) => list.findIndex((other) => other.name === item.name) !== index).map((item) => item.name));
  return (
    <>
      <Field label={label} hint={hint}>
        <select value={value} required={required} disabled={items.loading} onChange={(event) => onChange(event.currentTarget.value)}>
          <option value="">{items.loading ? 'loading…' : empty}</option>
          {list.map((item) => (
            <option value={item.id}>{twice.has(item.name) ? `${item.name} (${item.id})` : item.name}</option>
          ))}
        </select>
      </Field>
      <ErrorMessage error={items.error} />
    </>
  );
}

/** Checkboxes of names (several may be chosen); `chosen` holds names, as the API takes them. */
export function NameChecklist({
  legend,
  items,
  chosen,
  onChange,
  empty,
}: {
  legend: string;
  items: { data?: Named[]; error?: unknown; loading: boolean };
  chosen: string[];
  onChange(names: string[]): void;
  empty: string;
}) {
  const names = [...new Set((items.data ?? []).map((item) => item.name))];
  return (
    <fieldset class="row">
      <legend>{legend}</legend>
      {items.loading && <span>loading…</span>}
      {!items.loading && names.length === 0 && <span class="empty">{empty}</span>}
      {names.map((name) => (
        <label>
          <input
            type="checkbox"
            checked={chosen.includes(name)}
            onChange={(event) => onChange(event.currentTarget.checked ? [...chosen, name] : chosen.filter((other) => other !== name))}
          />{' '}
          {name}
        </label>
      ))}
      <ErrorMessage error={items.error} />
    </fieldset>
  );
}
