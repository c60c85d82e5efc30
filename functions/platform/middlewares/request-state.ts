import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Caller } from '../caller.js';
import type { Route } from '../route.js';

export type HttpEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2['requestContext'] & { authorizer?: { lambda?: Record<string, unknown> } };
};
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** What the middlewares learn about one request on the way in, and add to its response on the way out. */
export interface RequestState {
  route: Route;
  requestId: string;
  caller?: Caller;
  headers: Record<string, string>;
}
