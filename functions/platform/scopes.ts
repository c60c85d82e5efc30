// Every scope a key can hold, named once (docs/security.md lists them). `*` grants all. A `:manage` scope includes
// reading its area. Two scopes name one object: `resources:<resourceId>:call` and `scripts:<scriptId>:execute`, the
// latter being what the key createScript returns holds, so that key runs its one script and nothing else.

export const scopes = {
  all: '*',
  accountRead: 'account:read',
  accountWrite: 'account:write',
  keysManage: 'keys:manage',
  documentsRead: 'documents:read',
  documentsWrite: 'documents:write',
  eventsPublish: 'events:publish',
  flowsRead: 'flows:read',
  flowsManage: 'flows:manage',
  paymentsRead: 'payments:read',
  paymentsManage: 'payments:manage',
  resourcesRead: 'resources:read',
  resourcesManage: 'resources:manage',
  resourcesCall: 'resources:call',
  scriptsRead: 'scripts:read',
  scriptsManage: 'scripts:manage',
  scriptsExecute: 'scripts:execute',
  templatesRead: 'templates:read',
  templatesManage: 'templates:manage',
  templatesInstall: 'templates:install',
} as const;

export const baseScopes = Object.values(scopes);

/** The scope of a key bound to one script: it runs that script only. */
export const scriptExecuteScope = (scriptId: string) => `scripts:${scriptId}:execute`;
export const resourceCallScope = (resourceId: string) => `resources:${resourceId}:call`;

/** Scopes that name one object: a route lists them with the input field in braces (`scripts:{scriptId}:execute`). */
export const objectScopePatterns = [/^resources:[A-Za-z0-9_-]{1,64}:call$/, /^scripts:[A-Za-z0-9_-]{1,64}:execute$/];

/** The scope family of each area's routes: `<family>:read` to read, the write scope to change. */
const areaScopes: Record<string, { read: string[]; write: string[] }> = {
  accounts: { read: [scopes.accountRead, scopes.accountWrite], write: [scopes.accountWrite] },
  documents: { read: [scopes.documentsRead, scopes.documentsWrite], write: [scopes.documentsWrite] },
  events: { read: [scopes.scriptsRead, scopes.scriptsManage], write: [scopes.eventsPublish] },
  flows: { read: [scopes.flowsRead, scopes.flowsManage], write: [scopes.flowsManage] },
  payments: { read: [scopes.paymentsRead, scopes.paymentsManage], write: [scopes.paymentsManage] },
  resources: { read: [scopes.resourcesRead, scopes.resourcesManage, scopes.resourcesCall], write: [scopes.resourcesManage] },
  scripts: { read: [scopes.scriptsRead, scopes.scriptsManage], write: [scopes.scriptsManage] },
  // Installing needs templates:install (its route says so); a buyer's installations are read and changed with it too.
  templates: { read: [scopes.templatesRead, scopes.templatesManage, scopes.templatesInstall], write: [scopes.templatesManage] },
};

const readsOnly = (operation: string, method: string) => method === 'GET' || /^(get|list|search|lint)[A-Z]/.test(operation);

/** The scopes of an `apiKey` route that names none itself: its area's read or write scopes, by what it does. */
export function defaultScopes(area: string, operation: string, method: string): string[] | undefined {
  const family = areaScopes[area];
  return family && (readsOnly(operation, method) ? family.read : family.write);
}

const templateField = /\{(\w+)\}/g;
const isTemplate = (scope: string) => scope.includes('{');
const templateShape = (scope: string) => new RegExp(`^${scope.replace(templateField, '[A-Za-z0-9_-]{1,64}')}$`);

/** Before the input is read: the key holds a plain scope of the route, or some scope of a templated one's shape. */
export function mayHoldScope(held: string[], wanted: string[]): boolean {
  if (held.includes(scopes.all) || wanted.some((scope) => !isTemplate(scope) && held.includes(scope))) return true;
  const shapes = wanted.filter(isTemplate).map(templateShape);
  return held.some((scope) => shapes.some((shape) => shape.test(scope)));
}

/** With the input read: a plain scope, or a templated one filled with the input's fields (`scripts:{scriptId}:execute`). */
export function holdsScope(held: string[], wanted: string[], input: Record<string, unknown>): boolean {
  if (held.includes(scopes.all)) return true;
  const filled = wanted.map((scope) => scope.replace(templateField, (_, field: string) => String(input[field] ?? '')));
  return filled.some((scope) => held.includes(scope));
}
