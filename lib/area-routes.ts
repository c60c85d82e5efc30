// One nested stack per area of the route table: CloudFormation's 500-resource cap per stack would not
// hold ~100 operations (function, role, policy, log group, route, integration, permission each).
import { NestedStack } from 'aws-cdk-lib';
import { HttpMethod, HttpNoneAuthorizer, HttpRoute, HttpRouteKey, type IHttpApi, type IHttpRouteAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Construct } from 'constructs';
import type { Route } from '../functions/platform/route.js';
import { type PlatformResources, grantFunction } from './grants.js';
import { PlatformFunction } from './platform-function.js';

export interface AreaRoutesProps {
  area: string;
  /** This area's slice of the route table. */
  routes: Route[];
  httpApi: IHttpApi;
  /** Attached to `apiKey` routes only: `admin` routes check X-Admin-Key themselves, `public` ones are open. */
  apiKeyAuthorizer: IHttpRouteAuthorizer;
  resources: PlatformResources;
  /** Deployment-wide settings every route function receives. */
  environment: Record<string, string>;
}

export interface RouteBinding {
  route: Route;
  fn: PlatformFunction;
  httpRoute: HttpRoute;
}

export class AreaRoutes extends NestedStack {
  readonly area: string;
  readonly bindings: RouteBinding[];

  constructor(scope: Construct, id: string, props: AreaRoutesProps) {
    super(scope, id, { description: `Platform API: routes of the ${props.area} area` });
    this.area = props.area;
    const noAuthorizer = new HttpNoneAuthorizer();
    this.bindings = props.routes.map((route) => {
      const fn = new PlatformFunction(this, route.operation, {
        entry: route.handler,
        description: `${route.operation}: ${route.method} ${route.path}`,
        memoryMb: route.memoryMb,
        timeoutSeconds: route.timeoutSeconds,
        environment: props.environment,
      });
      grantFunction(fn, route, props.resources);
      const httpRoute = new HttpRoute(this, `${route.operation}Route`, {
        httpApi: props.httpApi,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${route.operation}Integration`, fn),
        authorizer: route.auth === 'apiKey' ? props.apiKeyAuthorizer : noAuthorizer,
      });
      return { route, fn, httpRoute };
    });
  }
}
