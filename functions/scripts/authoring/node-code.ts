// A node script as the wrapper loads it: CommonJS with `handler` exported. the design accepts a top-level
// `async function handler`, `export async function handler`, `exports.handler` and `module.exports.handler`;
// ES module syntax is rewritten in place (keeping every line where it was, so errors point at the user's lines).
import { type Node, type Program, parse } from 'acorn';
import { ValidationError } from '#platform/errors.js';

// biome-ignore lint/suspicious/noExplicitAny: acorn nodes carry type-specific fields its Node type does not declare
type Ranged = Node & Record<string, any>;

export class CodeSyntaxError extends ValidationError {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    code: string,
  ) {
    super('code', code.split('\n')[line - 1]?.slice(0, 200) ?? '', `syntax error at line ${line}, column ${column}: ${reason}`, { line, column });
  }
}

const parseOptions = { ecmaVersion: 'latest', locations: true } as const;

/** Parses as a module when the code uses import/export, as a script otherwise (so top-level await is an error, as in CommonJS). */
export function parseNode(code: string): { program: Program; isModule: boolean } {
  const isModule = /(^|[\n;])\s*(import\s*[\w{*'"]|export\s)/.test(code);
  try {
    return { program: parse(code, { ...parseOptions, sourceType: isModule ? 'module' : 'script', allowHashBang: true }), isModule };
  } catch (error) {
    const { loc } = error as { loc?: { line: number; column: number } };
    throw new CodeSyntaxError((error as Error).message.replace(/ \(\d+:\d+\)$/, ''), loc?.line ?? 1, (loc?.column ?? 0) + 1, code);
  }
}

const names = (pattern: Ranged): string[] => {
  switch (pattern.type) {
    case 'Identifier':
      return [pattern.name];
    case 'ObjectPattern':
      return pattern.properties.flatMap((property: Ranged) => names(property.type === 'RestElement' ? property.argument : property.value));
    case 'ArrayPattern':
      return pattern.elements.filter(Boolean).flatMap(names);
    case 'AssignmentPattern':
      return names(pattern.left);
    case 'RestElement':
      return names(pattern.argument);
    default:
      return [];
  }
};

const requireOf = (source: Ranged) => `require(${JSON.stringify(source.value)})`;

function importToRequire(node: Ranged): string {
  const source = requireOf(node.source);
  if (node.specifiers.length === 0) return `${source};`;
  const parts: string[] = [];
  const named: string[] = [];
  for (const specifier of node.specifiers as Ranged[]) {
    if (specifier.type === 'ImportNamespaceSpecifier') parts.push(`const ${specifier.local.name} = ${source};`);
    else if (specifier.type === 'ImportDefaultSpecifier')
      parts.push(`const ${specifier.local.name} = ((m) => (m && m.__esModule ? m.default : m))(${source});`);
    else named.push(specifier.imported.name === specifier.local.name ? specifier.local.name : `${specifier.imported.name}: ${specifier.local.name}`);
  }
  if (named.length) parts.push(`const { ${named.join(', ')} } = ${source};`);
  return parts.join(' ');
}

/** The code the wrapper `require`s: ES module syntax rewritten to CommonJS, and a top-level `handler` exported. */
export function toCommonJs(code: string): string {
  const { program, isModule } = parseNode(code);
  const footer = ["if (typeof handler === 'function' && typeof module.exports.handler !== 'function') module.exports.handler = handler;"];
  if (!isModule) return `${code}\n;${footer.join(' ')}\n`;
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const exported: string[] = [];
  for (const node of program.body as Ranged[]) {
    if (node.type === 'ImportDeclaration') edits.push({ start: node.start, end: node.end, text: importToRequire(node) });
    else if (node.type === 'ExportNamedDeclaration' && node.declaration) {
      edits.push({ start: node.start, end: node.declaration.start, text: '' });
      const declaration = node.declaration as Ranged;
      if (declaration.type === 'VariableDeclaration') exported.push(...declaration.declarations.flatMap((item: Ranged) => names(item.id)));
      else exported.push(declaration.id.name);
    } else if (node.type === 'ExportNamedDeclaration') {
      const from = node.source ? requireOf(node.source) : undefined;
      const assignments = (node.specifiers as Ranged[]).map(
        (specifier) => `module.exports.${specifier.exported.name} = ${from ? `${from}.${specifier.local.name}` : specifier.local.name};`,
      );
      if (from) edits.push({ start: node.start, end: node.end, text: assignments.join(' ') });
      else {
        edits.push({ start: node.start, end: node.end, text: '' });
        footer.unshift(...assignments);
      }
    } else if (node.type === 'ExportDefaultDeclaration') {
      const declaration = node.declaration as Ranged;
      if (declaration.id) {
        edits.push({ start: node.start, end: declaration.start, text: '' });
        footer.unshift(`module.exports.default = ${declaration.id.name};`);
      } else edits.push({ start: node.start, end: declaration.start, text: 'module.exports.default = ' });
    } else if (node.type === 'ExportAllDeclaration') {
      edits.push({
        start: node.start,
        end: node.end,
        text: node.exported ? `module.exports.${node.exported.name} = ${requireOf(node.source)};` : `Object.assign(module.exports, ${requireOf(node.source)});`,
      });
    }
  }
  footer.unshift(...exported.map((name) => `module.exports.${name} = ${name};`));
  let result = code;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    // Keep the line count of what is replaced so later lines stay where the user wrote them.
    const newlines = (code.slice(edit.start, edit.end).match(/\n/g) ?? []).length;
    result = result.slice(0, edit.start) + edit.text + '\n'.repeat(newlines) + result.slice(edit.end);
  }
  return `${result}\n;${footer.join(' ')}\n`;
}
