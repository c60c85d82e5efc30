// What lint needs to know about a script, read from a real parse: acorn for JavaScript, python3's own `ast`
// (python_facts.py) for Python. Both produce the same facts, and rules.ts judges them.
import type { Node } from 'acorn';
import { ancestor } from 'acorn-walk';
import { CodeSyntaxError, parseNode } from '../node-code.js';

export interface CodeFacts {
  syntaxError?: { message: string; line: number; column: number };
  handler?: { line: number; isAsync: boolean };
  /** `resources[name].method(...)`; `name` is absent when computed at run time. */
  resourceCalls: Array<{ line: number; name?: string; method: string }>;
  /** Reads of `event.data.<path>`, outermost path only. */
  dataAccesses: Array<{ line: number; path: string[] }>;
  /** Calls on the platform SDK object (`mirra.*` or `sdk.*`). */
  sdkCalls: Array<{ line: number; call: string }>;
  /** Modules the code imports (`import`, `require`, `import()` with a literal name), as written. */
  imports: Array<{ line: number; module: string }>;
  /**
   * Clock and random reads outside a `context.step(...)` callback (`Date.now()`, `new Date()`, `Math.random()`;
   * `time.time()`, `random.*()`, `datetime.now()`): a resumed durable run replays its code and gets another value.
   */
  unsteadyCalls: Array<{ line: number; call: string }>;
}

// biome-ignore lint/suspicious/noExplicitAny: acorn nodes carry type-specific fields its Node type does not declare
type AnyNode = Node & Record<string, any>;

const sdkRoots = new Set(['mirra', 'sdk']);

const keyOf = (member: AnyNode): string | undefined =>
  member.computed
    ? member.property.type === 'Literal' && typeof member.property.value === 'string'
      ? member.property.value
      : undefined
    : member.property.name;

/** `root.a['b'].c` as root name and keys; undefined keys are computed ones. */
function chainOf(node: AnyNode): { root?: string; keys: Array<string | undefined> } {
  const keys: Array<string | undefined> = [];
  let current = node;
  while (current.type === 'MemberExpression') {
    keys.unshift(keyOf(current));
    current = current.object;
  }
  return { root: current.type === 'Identifier' ? current.name : undefined, keys };
}

const isFunction = (node: AnyNode | undefined) => Boolean(node && /^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(node.type));

/** The handler the design accepts: top-level function or const, `exports.handler`, `module.exports.handler`, `module.exports = {handler}`. */
function findHandler(body: AnyNode[]): AnyNode | undefined {
  const topLevel = new Map<string, AnyNode>();
  for (const statement of body) {
    const node = statement.type === 'ExportNamedDeclaration' && statement.declaration ? statement.declaration : statement;
    if (node.type === 'FunctionDeclaration') topLevel.set(node.id.name, node);
    if (node.type === 'VariableDeclaration')
      for (const item of node.declarations) if (item.id.type === 'Identifier' && isFunction(item.init)) topLevel.set(item.id.name, item.init);
  }
  const resolve = (value: AnyNode | undefined) => (value?.type === 'Identifier' ? topLevel.get(value.name) : isFunction(value) ? value : undefined);
  for (const statement of body) {
    const assignment = statement.type === 'ExpressionStatement' && statement.expression.type === 'AssignmentExpression' ? statement.expression : undefined;
    if (assignment?.left.type !== 'MemberExpression') continue;
    const { root, keys } = chainOf(assignment.left);
    const path = [root, ...keys].join('.');
    if (path === 'exports.handler' || path === 'module.exports.handler') return resolve(assignment.right);
    if (path === 'module.exports' && assignment.right.type === 'ObjectExpression') {
      const property = assignment.right.properties.find((item: AnyNode) => item.type === 'Property' && (item.key.name ?? item.key.value) === 'handler');
      if (property) return resolve(property.value);
    }
  }
  return topLevel.get('handler');
}

export function javascriptFacts(code: string): CodeFacts {
  const facts: CodeFacts = { resourceCalls: [], dataAccesses: [], sdkCalls: [], imports: [], unsteadyCalls: [] };
  let program: AnyNode;
  try {
    program = parseNode(code).program as AnyNode;
  } catch (error) {
    if (!(error instanceof CodeSyntaxError)) throw error;
    return { ...facts, syntaxError: { message: error.reason, line: error.line, column: error.column } };
  }
  const handler = findHandler(program.body);
  if (handler) facts.handler = { line: handler.loc!.start.line, isAsync: Boolean(handler.async) };
  const eventName = handler?.params[0]?.type === 'Identifier' ? handler.params[0].name : 'event';
  const contextName = handler?.params[1]?.type === 'Identifier' ? handler.params[1].name : 'context';
  /** Inside the function of a `context.step(name, fn)`: what runs there is journaled once, not replayed. */
  const inStep = (ancestors: AnyNode[]) =>
    ancestors.some((node, index) => {
      const call = ancestors[index - 1];
      return (
        isFunction(node) &&
        call?.type === 'CallExpression' &&
        call.arguments.includes(node) &&
        call.callee.type === 'MemberExpression' &&
        call.callee.object.type === 'Identifier' &&
        call.callee.object.name === contextName &&
        keyOf(call.callee) === 'step'
      );
    });

  // Names bound to event.data: `const data = event.data` and `const { data } = event`.
  const aliases = new Set<string>();
  ancestor(program, {
    VariableDeclarator(node: AnyNode) {
      if (!node.init) return;
      const { root, keys } =
        node.init.type === 'MemberExpression' ? chainOf(node.init) : { root: node.init.type === 'Identifier' ? node.init.name : undefined, keys: [] };
      if (root !== eventName) return;
      if (node.id.type === 'Identifier' && keys.length === 1 && keys[0] === 'data') aliases.add(node.id.name);
      if (node.id.type === 'ObjectPattern' && keys.length === 0) {
        for (const property of node.id.properties)
          if (property.type === 'Property' && property.key.name === 'data' && property.value.type === 'Identifier') aliases.add(property.value.name);
      }
      if (node.id.type === 'ObjectPattern' && keys.length === 1 && keys[0] === 'data') {
        for (const property of node.id.properties)
          if (property.type === 'Property' && !property.computed)
            facts.dataAccesses.push({ line: property.loc.start.line, path: [property.key.name ?? property.key.value] });
      }
    },
  } as never);

  ancestor(program, {
    MemberExpression(node: AnyNode, _state: unknown, ancestors: AnyNode[]) {
      const parent = ancestors[ancestors.length - 2];
      if (parent?.type === 'MemberExpression' && parent.object === node) return;
      const { root, keys } = chainOf(node);
      const path = root === eventName && keys[0] === 'data' ? keys.slice(1) : root && aliases.has(root) ? keys : [];
      const firstComputed = path.indexOf(undefined);
      const known = (firstComputed < 0 ? path : path.slice(0, firstComputed)) as string[];
      if (known.length) facts.dataAccesses.push({ line: node.loc!.start.line, path: known });
    },
    ImportDeclaration(node: AnyNode) {
      facts.imports.push({ line: node.loc!.start.line, module: node.source.value });
    },
    ImportExpression(node: AnyNode) {
      if (node.source.type === 'Literal' && typeof node.source.value === 'string')
        facts.imports.push({ line: node.loc!.start.line, module: node.source.value });
    },
    NewExpression(node: AnyNode, _state: unknown, ancestors: AnyNode[]) {
      if (node.callee.type === 'Identifier' && node.callee.name === 'Date' && node.arguments.length === 0 && !inStep(ancestors))
        facts.unsteadyCalls.push({ line: node.loc!.start.line, call: 'new Date()' });
    },
    CallExpression(node: AnyNode, _state: unknown, ancestors: AnyNode[]) {
      const [first] = node.arguments;
      if (node.callee.type === 'Identifier' && node.callee.name === 'require' && first?.type === 'Literal' && typeof first.value === 'string') {
        facts.imports.push({ line: node.loc!.start.line, module: first.value });
      }
      if (node.callee.type !== 'MemberExpression') return;
      const { root, keys } = chainOf(node.callee);
      const called = [root, ...keys].join('.');
      if ((called === 'Date.now' || called === 'Math.random') && !inStep(ancestors))
        facts.unsteadyCalls.push({ line: node.loc!.start.line, call: `${called}()` });
      if (root === 'resources' && keys.length === 2 && keys[1] !== undefined)
        facts.resourceCalls.push({ line: node.loc!.start.line, method: keys[1], ...(keys[0] !== undefined && { name: keys[0] }) });
      if (root && sdkRoots.has(root)) facts.sdkCalls.push({ line: node.loc!.start.line, call: [root, ...keys.map((key) => key ?? '[]')].join('.') });
    },
  } as never);
  return facts;
}
