// THE route table: read by lib/ (one API Gateway route and one Lambda per entry) and by bin/local.ts.
import { accountRoutes } from './accounts/routes.js';
import { agentRoutes } from './agents/routes.js';
import { approvalRoutes } from './approvals/routes.js';
import { documentRoutes } from './documents/routes.js';
import { eventRoutes } from './events/routes.js';
import { flowRoutes } from './flows/routes.js';
import { oauthRoutes } from './oauth/routes.js';
import { paymentRoutes } from './payments/routes.js';
import type { Route } from './platform/route.js';
import { platformRoutes } from './app/platform-routes.js';
import { resourceRoutes } from './resources/routes.js';
import { runRoutes, scriptRoutes } from './scripts/routes.js';
import { templateRoutes } from './templates/routes.js';

export const routes: Route[] = [
  ...Object.values(platformRoutes),
  ...Object.values(accountRoutes),
  ...Object.values(agentRoutes),
  ...Object.values(approvalRoutes),
  ...Object.values(documentRoutes),
  ...Object.values(eventRoutes),
  ...Object.values(flowRoutes),
  ...Object.values(paymentRoutes),
  ...Object.values(resourceRoutes),
  ...Object.values(scriptRoutes),
  ...Object.values(runRoutes),
  ...Object.values(templateRoutes),
  ...Object.values(oauthRoutes),
];

/** What API Gateway serves: every route but the local-mode stand-ins. */
export const deployedRoutes: Route[] = routes.filter((route) => !route.localOnly);

/** Resolves the caller's identity from an API key for every `apiKey` route. */
export const authorizerHandler = 'functions/app/accounts/handlers/authorize-api-key.ts';

/** The only table the authorizer reads (its grant on AWS, its only table locally). */
export const authorizerTables = { apiKeys: 'read' } as const;

/** API Gateway's `$default` route: unknown paths and wrong methods get the envelope. */
export const fallbackHandler = 'functions/app/handlers/route-fallback.ts';
