// The one builder of DynamoDB update expressions every store uses: placeholder names for every attribute, so
// reserved words and map keys (execution ids) are names, never syntax.

export interface UpdateParts {
  expression: string;
  names: Record<string, string>;
  /** Undefined when nothing is set: DynamoDB refuses an empty ExpressionAttributeValues. */
  values?: Record<string, unknown>;
}

/**
 * `SET` for each field of `set` whose value is defined, `REMOVE` for each path of `remove` (a field, or a path as its
 * segments). With `removeUndefined`, a field set to undefined is removed instead of skipped.
 */
export function updateExpression(
  set: Record<string, unknown>,
  remove: Array<string | string[]> = [],
  options: { removeUndefined?: boolean } = {},
): UpdateParts {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const removals = [...remove.map((path) => (typeof path === 'string' ? [path] : path))];
  const assignments: string[] = [];
  for (const [field, value] of Object.entries(set)) {
    if (value === undefined) {
      if (options.removeUndefined) removals.push([field]);
      continue;
    }
    const index = assignments.length;
    names[`#s${index}`] = field;
    values[`:s${index}`] = value;
    assignments.push(`#s${index} = :s${index}`);
  }
  const removed = removals.map((path, index) =>
    path
      .map((segment, depth) => {
        names[`#r${index}_${depth}`] = segment;
        return `#r${index}_${depth}`;
      })
      .join('.'),
  );
  const expression = [assignments.length ? `SET ${assignments.join(', ')}` : '', removed.length ? `REMOVE ${removed.join(', ')}` : '']
    .filter(Boolean)
    .join(' ');
  return { expression, names, values: assignments.length ? values : undefined };
}
