// The form a template's template.json fields describe: color, number (min, max, step), boolean, string (maxLength),
// select (options); each starts at its default.
import { useState } from 'preact/hooks';
import { Field, type Rec } from '../ui';

type Value = string | number | boolean;

function Input({ field, value, onChange }: { field: Rec; value: Value; onChange(value: Value): void }) {
  switch (field.type) {
    case 'color':
      return <input type="color" value={String(value)} onInput={(event) => onChange(event.currentTarget.value)} />;
    case 'number':
      return (
        <input
          type="number"
          min={field.min}
          max={field.max}
          step={field.step ?? 'any'}
          value={String(value)}
          onInput={(event) => onChange(Number(event.currentTarget.value))}
        />
      );
    case 'boolean':
      return <input type="checkbox" checked={Boolean(value)} onChange={(event) => onChange(event.currentTarget.checked)} />;
    case 'select':
      return (
        <select value={String(value)} onChange={(event) => onChange(event.currentTarget.value)}>
          {(field.options as string[]).map((option) => (
            <option>{option}</option>
          ))}
        </select>
      );
    default:
      return <input maxLength={field.maxLength} value={String(value)} onInput={(event) => onChange(event.currentTarget.value)} />;
  }
}

export function CustomizationForm({ fields, submitLabel, onSubmit }: { fields: Rec[]; submitLabel: string; onSubmit(values: Record<string, Value>): void }) {
  const [values, setValues] = useState<Record<string, Value>>(() => Object.fromEntries(fields.map((field) => [field.key, field.default])));
  return (
    <form
      class="card"
      aria-label="Customization"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(values);
      }}
    >
      {fields.length === 0 && <p class="empty">This template has no customization fields.</p>}
      {fields.map((field) => (
        <Field label={field.label ?? field.key} hint={field.description}>
          <Input field={field} value={values[field.key] as Value} onChange={(value) => setValues({ ...values, [field.key]: value })} />
        </Field>
      ))}
      <button type="submit">{submitLabel}</button>
    </form>
  );
}
