import * as z from 'zod';
import { defineRoutes } from '#platform/route.js';

// The platform's own operations. Their handlers live in functions/app/handlers/: the OpenAPI document reads the whole
// route table, which the kernel does not know.
export const platformRoutes = defineRoutes(
  'platform',
  {
    getHealth: {
      method: 'GET',
      path: '/api/sdk/v1/health',
      auth: 'public',
      summary: 'Liveness and version',
      output: z.object({ status: z.literal('ok'), version: z.string(), time: z.string() }),
    },
    getOpenApiDocument: {
      method: 'GET',
      path: '/api/sdk/v1/openapi.json',
      auth: 'public',
      summary: 'This OpenAPI 3 document, generated from the route table',
    },
  },
  'functions/app/handlers',
);
