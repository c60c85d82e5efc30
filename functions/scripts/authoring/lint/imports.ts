// Packages a script imports but does not declare: what lintScript suggests as its `dependencies`.
import { builtinModules } from 'node:module';
import type { DeclaredDependencies, RuntimeLabel } from '../../model.js';
import type { CodeFacts } from './code-facts.js';

const nodeBuiltins = new Set(builtinModules);

/** `lodash/fp` -> `lodash`, `@scope/pkg/sub` -> `@scope/pkg`; undefined for relative paths and Node's own modules. */
function npmPackageOf(module: string): string | undefined {
  if (module.startsWith('.') || module.startsWith('/') || module.startsWith('node:')) return undefined;
  const parts = module.split('/');
  const name = module.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return nodeBuiltins.has(name) ? undefined : name;
}

/** Pip's names are case-insensitive and treat `-`, `_` and `.` alike (PEP 503). */
const normalized = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/**
 * The dependencies value to declare for imports not declared yet, in the runtime's shape (`*`: any version for npm;
 * a bare name for pip); undefined when nothing is missing. Python import names usually, not always, match the
 * distribution's name (`yaml` is PyYAML): the suggestion is a start.
 */
export function suggestedDependencies(runtime: RuntimeLabel, facts: CodeFacts, declared?: DeclaredDependencies): DeclaredDependencies | undefined {
  if (runtime === 'nodejs18') {
    const known = new Set(declared && !Array.isArray(declared) ? Object.keys(declared) : []);
    const missing = [
      ...new Set(facts.imports.map((item) => npmPackageOf(item.module)).filter((name): name is string => name !== undefined && !known.has(name))),
    ];
    return missing.length ? Object.fromEntries(missing.map((name) => [name, '*'])) : undefined;
  }
  const known = new Set((Array.isArray(declared) ? declared : []).map((requirement) => normalized(/^[A-Za-z0-9._-]+/.exec(requirement)?.[0] ?? requirement)));
  const missing = [...new Set(facts.imports.map((item) => item.module))].filter((name) => !known.has(normalized(name)));
  return missing.length ? missing : undefined;
}
