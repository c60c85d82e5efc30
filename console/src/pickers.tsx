// Choosing an object by its name where the API wants its id: the caller's scripts and flows, loaded once per page.
import { api, unwrap } from './api';
import { ErrorMessage, Field, type Rec, useLoad } from './ui';

export interface Named { id: string; name: string }

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

/** The name of `id` among `items`, or the id itself while the list loads or when it is not there (another user's). */
export const nameOf = (items: Named[] | undefined, id: string | null | undefined) => (id ? items?.find((item) => item.id === id)?.name ?? id : undefined);

/** A select of names whose value is the chosen id; `empty` labels the no-choice option. Equal names show their id. */
export function NamePicker({ label, hint, items, value, onChange, empty, required }: {
  label: string; hint?: string; items: { data?: Named[]; error?: unknown; loading: boolean }; value: string; onChange(id: string): void; empty: string; required?: boolean;
}) {
  const list = items.data ?? [];
  const twice = new Set(list.filter((item, index) => list.findIndex((other) => other.name === item.name) !== index).map((item) => item.name));
  return <>
    <Field label={label} hint={hint}>
      <select value={value} required={required} disabled={items.loading} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">{items.loading ? 'loading…' : empty}</option>
        {list.map((item) => <option value={item.id}>{twice.has(item.name) ? `${item.name} (${item.id})` : item.name}</option>)}
      </select>
    </Field>
    <ErrorMessage error={items.error} />
  </>;
}
