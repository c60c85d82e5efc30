// A JSON value as a collapsible tree (objects and arrays fold, the first levels open), with a button that copies the
// whole value as indented JSON.
import { useState } from 'preact/hooks';

const openLevels = 2;
/** Past this many entries a level starts folded: a 5,000-item array stays one line until asked. */
const openEntries = 50;

function Scalar({ value }: { value: unknown }) {
  const kind = value === null ? 'null' : typeof value;
  return <span class={`json-${kind}`}>{kind === 'string' ? JSON.stringify(value) : String(value)}</span>;
}

function Node({ name, value, depth }: { name?: string; value: unknown; depth: number }) {
  const label = name !== undefined && <span class="json-key">{name}: </span>;
  if (value === null || typeof value !== 'object')
    return (
      <li>
        {label}
        <Scalar value={value} />
      </li>
    );
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0)
    return (
      <li>
        {label}
        {open + close}
      </li>
    );
  return (
    <li>
      <details open={depth < openLevels && entries.length <= openEntries}>
        <summary>
          {label}
          {open}
          <span class="json-count">
            {' '}
            {entries.length} {Array.isArray(value) ? 'items' : 'keys'}{' '}
          </span>
          {close}
        </summary>
        <ul>
          {entries.map(([key, item]) => (
            <Node name={key} value={item} depth={depth + 1} />
          ))}
        </ul>
      </details>
    </li>
  );
}

export function JsonTree({ value, label }: { value: unknown; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(JSON.stringify(value, null, 2) ?? 'undefined');
    setCopied(true);
  };
  return (
    <section class="json" aria-label={label}>
      <button type="button" class="secondary copy" onClick={copy}>
        {copied ? 'Copied' : 'Copy JSON'}
      </button>
      {value === undefined ? <p class="empty">(nothing)</p> : <ul class="json-tree">{<Node value={value} depth={0} />}</ul>}
    </section>
  );
}
