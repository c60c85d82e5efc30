// The condition-tree builder of event flows: groups (AND, OR) of leaves {field, operator, value} and nested groups,
// with the flow operators; at most 5 levels deep, as the platform allows.
import { Field, type Rec } from '../ui';

export const flowOperators = ['equals', 'contains', 'startsWith', 'endsWith', 'greaterThan', 'lessThan', 'exists', 'regex'] as const;
export type ConditionNode = { operator: 'AND' | 'OR'; conditions: ConditionNode[] } | { field: string; operator: string; value: unknown };
const maxDepth = 5;

export const newLeaf = (): ConditionNode => ({ field: 'text', operator: 'contains', value: '' });

function Leaf({ node, onChange, onRemove, path }: { node: Rec; onChange(node: ConditionNode): void; onRemove(): void; path: string }) {
  return (
    <fieldset class="row" aria-label={`Condition ${path}`}>
      <Field label="Field">
        <input value={node.field} onInput={(event) => onChange({ ...(node as ConditionNode & Rec), field: event.currentTarget.value })} />
      </Field>
      <Field label="Operator">
        <select
          value={node.operator}
          onChange={(event) => {
            const operator = event.currentTarget.value;
            onChange({ field: node.field, operator, value: operator === 'exists' ? true : node.value === true ? '' : node.value });
          }}
        >
          {flowOperators.map((name) => (
            <option>{name}</option>
          ))}
        </select>
      </Field>
      {node.operator === 'exists' ? (
        <Field label="Exists">
          <select
            value={String(node.value)}
            onChange={(event) => onChange({ field: node.field, operator: node.operator, value: event.currentTarget.value === 'true' })}
          >
            <option>true</option>
            <option>false</option>
          </select>
        </Field>
      ) : (
        <Field label="Value">
          <input
            value={String(node.value)}
            onInput={(event) => {
              const raw = event.currentTarget.value;
              onChange({
                field: node.field,
                operator: node.operator,
                value: ['greaterThan', 'lessThan'].includes(node.operator) && raw !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw,
              });
            }}
          />
        </Field>
      )}
      <button type="button" class="secondary" onClick={onRemove} aria-label={`Remove condition ${path}`}>
        Remove
      </button>
    </fieldset>
  );
}

export function ConditionGroup({
  node,
  onChange,
  onRemove,
  depth = 1,
  path = '1',
}: {
  node: Rec;
  onChange(node: ConditionNode): void;
  onRemove?: () => void;
  depth?: number;
  path?: string;
}) {
  const children = node.conditions as ConditionNode[];
  const replace = (index: number, child?: ConditionNode) =>
    onChange({
      operator: node.operator,
      conditions: child ? children.map((other, at) => (at === index ? child : other)) : children.filter((_, at) => at !== index),
    });
  return (
    <fieldset class="condition-group">
      <legend>
        Group {path}:{' '}
        <select
          aria-label={`Group ${path} combines with`}
          value={node.operator}
          onChange={(event) => onChange({ operator: event.currentTarget.value as 'AND' | 'OR', conditions: children })}
        >
          <option>AND</option>
          <option>OR</option>
        </select>
      </legend>
      {children.map((child, index) =>
        'conditions' in child ? (
          <ConditionGroup
            node={child}
            depth={depth + 1}
            path={`${path}.${index + 1}`}
            onChange={(next) => replace(index, next)}
            onRemove={() => replace(index)}
          />
        ) : (
          <Leaf node={child} path={`${path}.${index + 1}`} onChange={(next) => replace(index, next)} onRemove={() => replace(index)} />
        ),
      )}
      <div class="row">
        <button type="button" class="secondary" onClick={() => onChange({ operator: node.operator, conditions: [...children, newLeaf()] })}>
          Add condition
        </button>
        {depth < maxDepth && (
          <button
            type="button"
            class="secondary"
            onClick={() => onChange({ operator: node.operator, conditions: [...children, { operator: 'AND', conditions: [newLeaf()] }] })}
          >
            Add group
          </button>
        )}
        {onRemove && (
          <button type="button" class="secondary" onClick={onRemove}>
            Remove group
          </button>
        )}
      </div>
    </fieldset>
  );
}
