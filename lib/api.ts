// The HTTP API: stage with access logs, the API-key authorizer and the `$default` fallback.
// Per-operation routes are added by each area's nested stack (lib/area-routes.ts).
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnStage, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import type { Route } from '../functions/platform/route.js';
import { authorizerHandler, authorizerTables, fallbackHandler } from '../functions/routes.js';
import { type PlatformResources, grantTables } from './grants.js';
import { PlatformFunction } from './platform-function.js';

export interface ApiProps {
  resources: PlatformResources;
}

// HTTP API $context variables (the REST API presets of AccessLogFormat name fields HTTP APIs lack).
const accessLogFields = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  method: '$context.httpMethod',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  userId: '$context.authorizer.userId',
};

/** Requests per second (steady, burst) of the whole stage, and of each route anyone may call without a key. */
export const stageThrottle = { rateLimit: 500, burstLimit: 1000 } as const;
export const publicRouteThrottle = { rateLimit: 20, burstLimit: 40 } as const;

export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  readonly authorizerFunction: PlatformFunction;
  readonly authorizer: HttpLambdaAuthorizer;
  readonly fallbackFunction: PlatformFunction;
  readonly url: string;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    this.fallbackFunction = new PlatformFunction(this, 'RouteFallback', {
      entry: fallbackHandler,
      description: '$default route: unknown path or method, answered in the envelope',
    });
    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `${Stack.of(this).stackName}-api`,
      description: 'Automation marketplace platform API',
      // The default stage cannot take access-log settings; ours below can.
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('RouteFallbackIntegration', this.fallbackFunction),
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      // Below the account's 10,000 rps shared by every API of the region; public routes get their own, tighter limits.
      throttle: stageThrottle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    this.url = this.stage.url;

    this.authorizerFunction = new PlatformFunction(this, 'AuthorizeApiKey', {
      entry: authorizerHandler,
      description: 'Resolves the caller of every apiKey route from X-API-Key or Authorization: Bearer',
    });
    grantTables(this.authorizerFunction, authorizerTables, props.resources);
    // Identity sources of an HTTP API are a conjunction and a missing one is answered with a bare 401 by
    // API Gateway itself. Two alternative headers are accepted, and every refusal must be our envelope: so no
    // identity source, no API Gateway cache (it needs identity sources as its key). The function caches in
    // memory, always authorizes, and the handler middleware answers 401/403 from the (possibly empty) context.
    this.authorizer = new HttpLambdaAuthorizer('ApiKeyAuthorizer', this.authorizerFunction, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [],
      resultsCacheTtl: Duration.seconds(0),
    });
  }

  /**
   * Public routes (webhooks, x402, the OAuth callback, health) cost a handler invocation per request from anyone:
   * each gets its own limit. Stage route settings name routes that must exist first, so the stage waits for `routeOwners`.
   */
  throttlePublicRoutes(routes: Route[], routeOwners: IDependable[]): void {
    const publicRoutes = routes.filter((route) => route.auth === 'public');
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      publicRoutes.map((route) => [
        `${route.method} ${route.path}`,
        { ThrottlingRateLimit: publicRouteThrottle.rateLimit, ThrottlingBurstLimit: publicRouteThrottle.burstLimit },
      ]),
    );
    for (const owner of routeOwners) this.stage.node.addDependency(owner);
  }
}
