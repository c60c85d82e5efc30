// Issue 15's operations: throttling, stages side by side, bus rule filters, the Python lint function, the wallet's
// address from context, and the Bedrock grant scoped to the configured model.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { busConsumers } from '../../functions/consumers.js';
import { scheduleFiringType, webhookDeliveryType } from '../../functions/events/internal-events.js';
import { flowReplayType, flowRetryType, flowScheduleType } from '../../functions/flows/internal-events.js';
import { busEnvelope, matchesRule, rulePattern } from '../../functions/platform/bus-envelope.js';
import type { Route } from '../../functions/platform/route.js';
import { deployedRoutes, routes } from '../../functions/routes.js';
import { publicRouteThrottle, stageThrottle } from '../../lib/api.js';
import { PlatformStack, type PlatformStackProps } from '../../lib/platform-stack.js';
import { pythonLambdaRuntime } from '../../lib/python-lint.js';
import { type Json, Synthesized, appWithoutBundling, logicalId } from './synthesized.js';

/** Literal physical names in a template: the properties AWS keeps unique per account and region (an authorizer's is per API). */
const nameKeys = [
  'Name',
  'FunctionName',
  'RoleName',
  'TableName',
  'BucketName',
  'QueueName',
  'LogGroupName',
  'ProjectName',
  'AliasName',
  'EventBusName',
  'SecretName',
];
function physicalNames(s: Synthesized): string[] {
  const templates = [s.parent, ...[...s.stack.areas, s.stack.consumers].map((nested) => s.template(nested))];
  return templates.flatMap((template) =>
    Object.values(template.toJSON().Resources as Record<string, Json>)
      .filter((resource) => resource.Type !== 'AWS::ApiGatewayV2::Authorizer')
      .flatMap((resource) => nameKeys.map((key) => resource.Properties?.[key]).filter((value): value is string => typeof value === 'string')),
  );
}

describe('infra: two stages in one account and region', () => {
  let blue: Synthesized;
  let green: Synthesized;

  beforeAll(() => {
    // Prepare
    const app = appWithoutBundling(false);
    // Act
    const stacks = [new PlatformStack(app, 'PlatformStack-blue'), new PlatformStack(app, 'PlatformStack-green')];
    [blue, green] = stacks.map((stack) => new Synthesized(stack));
  }, 120_000);

  it('derives every physical name from the stack, so no name of one stage is a name of the other', () => {
    // Act
    const [blueNames, greenNames] = [physicalNames(blue), physicalNames(green)];
    // Assess
    expect(blueNames).toEqual(expect.arrayContaining(['PlatformStack-blue-events', 'PlatformStack-blue', 'PlatformStack-blue-api']));
    expect(blueNames.filter((name) => greenNames.includes(name))).toEqual([]);
    expect(blue.stack.scripts.functionPrefix).toBe('PlatformStack-blue-script-');
    expect(green.stack.scripts.functionPrefix).toBe('PlatformStack-green-script-');
  });

  it('throttles the stage, and each public route more tightly, once the routes exist', () => {
    // Act
    const [stage] = Object.values(blue.parent.findResources('AWS::ApiGatewayV2::Stage')) as Json[];
    const publicKeys = deployedRoutes.filter((route) => route.auth === 'public').map((route) => `${route.method} ${route.path}`);
    // Assess
    expect(stage!.Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: stageThrottle.rateLimit,
      ThrottlingBurstLimit: stageThrottle.burstLimit,
    });
    expect(Object.keys(stage!.Properties.RouteSettings).sort()).toEqual(publicKeys.sort());
    expect(publicKeys).toEqual(expect.arrayContaining(['POST /api/webhooks/{webhookId}', 'GET /api/sdk/v1/health']));
    for (const key of publicKeys) {
      expect(stage!.Properties.RouteSettings[key]).toEqual({
        ThrottlingRateLimit: publicRouteThrottle.rateLimit,
        ThrottlingBurstLimit: publicRouteThrottle.burstLimit,
      });
    }
    expect(publicRouteThrottle.rateLimit).toBeLessThan(stageThrottle.rateLimit);
    expect(stage!.DependsOn).toEqual(expect.arrayContaining(blue.stack.areas.map((area) => logicalId(area.nestedStackResource))));
  });

  it('reads the platform wallet address from context on public routes, and its secret only in the payout run', () => {
    // Prepare
    const paid = ['getPaidResource', 'callPaidResource', 'verifyPayment', 'settlePayment', 'getSupportedPayments'];
    const secretArn = { Ref: logicalId(blue.stack.security.walletSecret.node.defaultChild) };
    // Act
    const readers = paid.filter((operation) => {
      const fn = blue.fn(blue.binding(operation).fn);
      return 'PLATFORM_WALLET_SECRET_ARN' in fn.props.Environment.Variables || JSON.stringify(fn.statements).includes(JSON.stringify(secretArn));
    });
    const payouts = blue.fn(blue.stack.payouts.fn);
    // Assess
    expect(readers).toEqual([]);
    expect(JSON.stringify(payouts.statements)).toContain(JSON.stringify(secretArn));
  });

  it('runs Python lint in a Python function on a supported runtime that only lintScript may invoke', () => {
    // Prepare
    const lintFn = { 'Fn::GetAtt': [logicalId(blue.stack.pythonLint.fn.node.defaultChild), 'Arn'] };
    // Act
    const python = blue.resource(blue.stack, logicalId(blue.stack.pythonLint.fn.node.defaultChild)).Properties;
    const invokers = routes
      .filter((route) => !route.localOnly)
      .filter((route) => JSON.stringify(blue.fn(blue.binding(route.operation).fn).statements).includes(JSON.stringify(lintFn)));
    // Assess
    expect(python).toMatchObject({ Runtime: pythonLambdaRuntime.name, Handler: 'python_facts.handler' });
    expect(pythonLambdaRuntime.name).toMatch(/^python3\.1[23]$/);
    expect(invokers.map((route) => route.operation)).toEqual(['lintScript']);
  });
});

describe('infra: the Python lint function', () => {
  it('answers the facts of the code it is handed through its Lambda handler', () => {
    // Prepare
    const dir = fileURLToPath(new URL('../../functions/scripts/authoring/lint', import.meta.url));
    const code = "def handler(event, context):\n    return resources['db'].get(event['data']['id'])\n";
    // Act
    const output = execFileSync(
      'python3',
      [
        '-c',
        `import json, sys; sys.path.insert(0, sys.argv[1]); import python_facts; print(json.dumps(python_facts.handler({'code': sys.argv[2]}, None)))`,
        dir,
        code,
      ],
      { encoding: 'utf8' },
    );
    // Assess
    expect(JSON.parse(output)).toMatchObject({
      handler: { line: 1, isAsync: false },
      resourceCalls: [{ name: 'db', method: 'get' }],
      dataAccesses: [{ path: ['id'] }],
    });
  });
});

describe('infra: bus rules carry only the events their consumer handles', () => {
  const consumer = (name: string) => rulePattern(busConsumers.find((candidate) => candidate.name === name)!);
  const delivered = (type: string, source: string) => busEnvelope({ id: 'evt_1', type, source, userId: 'usr_1' } as never);

  it("gives the dispatcher user events, script schedule firings and webhooks, and not the flows' own deliveries", () => {
    // Act
    const dispatcher = consumer('dispatchEvent');
    // Assess
    expect(matchesRule(dispatcher, delivered('chatapp.message', 'api'))).toBe(true);
    expect(matchesRule(dispatcher, delivered(scheduleFiringType, 'scheduler'))).toBe(true);
    expect(matchesRule(dispatcher, delivered(webhookDeliveryType, 'script-webhook'))).toBe(true);
    expect(matchesRule(dispatcher, delivered(flowScheduleType, 'scheduler'))).toBe(false);
    expect(matchesRule(dispatcher, delivered(flowRetryType, 'scheduler'))).toBe(false);
  });

  it("gives the flows' rule its schedule firings, retries, replays and the ends of durable runs a flow waits on only: user events reach the one trigger pipeline rule, not this one too", () => {
    // Act
    const flows = consumer('runFlows');
    // Assess
    expect(matchesRule(flows, delivered('system.flow_paused', 'flows'))).toBe(false);
    expect(matchesRule(flows, delivered('chatapp.message', 'api'))).toBe(false);
    expect(matchesRule(flows, delivered(flowScheduleType, 'scheduler'))).toBe(true);
    expect(matchesRule(flows, delivered(flowRetryType, 'scheduler'))).toBe(true);
    expect(matchesRule(flows, delivered(flowReplayType, 'flows'))).toBe(true);
    expect(matchesRule(flows, delivered(scheduleFiringType, 'scheduler'))).toBe(false);
    expect(matchesRule(flows, delivered(webhookDeliveryType, 'script-webhook'))).toBe(false);
  });

  it('hands every event type to exactly one consumer: one invocation per user event, which reaches subscriptions and event flows', () => {
    // Prepare
    const types = [
      ['chatapp.message', 'api'],
      ['system.flow_paused', 'flows'],
      [scheduleFiringType, 'scheduler'],
      [webhookDeliveryType, 'script-webhook'],
      [flowScheduleType, 'scheduler'],
      [flowRetryType, 'scheduler'],
      [flowReplayType, 'flows'],
    ] as const;
    // Act
    const takers = types.map(([type, source]) =>
      busConsumers.filter((candidate) => matchesRule(rulePattern(candidate), delivered(type, source))).map((c) => c.name),
    );
    // Assess
    expect(takers).toEqual([['dispatchEvent'], ['dispatchEvent'], ['dispatchEvent'], ['dispatchEvent'], ['runFlows'], ['runFlows'], ['runFlows']]);
    expect(busConsumers.filter((candidate) => candidate.userEvents).map((candidate) => candidate.name)).toEqual(['dispatchEvent']);
  });
});

describe('infra: the Bedrock grant names the configured model only', () => {
  const probe: Route = {
    operation: 'llmProbe',
    area: 'probe',
    method: 'POST',
    path: '/probe',
    auth: 'public',
    summary: 'probe',
    uses: ['llm'],
    handler: routes[0]!.handler,
  };
  const bedrockStatements = (llm: PlatformStackProps['llm'], id: string) => {
    const s = new Synthesized(new PlatformStack(appWithoutBundling(false), id, { routes: [probe], llm }));
    return s.fn(s.binding('llmProbe').fn).statements.filter((statement) => statement.actions.some((action) => action.startsWith('bedrock:')));
  };

  it("grants no Bedrock model when none is configured, or when the model is an OpenAI-compatible endpoint's", () => {
    // Act
    const none = bedrockStatements(undefined, 'NoModel');
    const openai = bedrockStatements({ provider: 'openai', model: 'gpt-4o-mini', baseUrl: 'https://api.openai.com/v1' }, 'OpenAiModel');
    // Assess
    expect(none).toEqual([]);
    expect(openai).toEqual([]);
  }, 60_000);

  it("grants a foundation model in the stack's region, or an inference profile and the model it routes to", () => {
    // Act
    const [model] = bedrockStatements({ model: 'anthropic.claude-3-haiku-20240307-v1:0' }, 'FoundationModel');
    const [profile] = bedrockStatements({ model: 'us.anthropic.claude-3-haiku-20240307-v1:0' }, 'InferenceProfile');
    const text = (value: unknown) => JSON.stringify(value);
    // Assess
    expect(model!.resources).toHaveLength(1);
    expect(text(model!.resources)).toContain(':foundation-model/anthropic.claude-3-haiku-20240307-v1:0');
    expect(text(model!.resources)).toContain('{"Ref":"AWS::Region"}');
    expect(text(profile!.resources)).toContain(':inference-profile/us.anthropic.claude-3-haiku-20240307-v1:0');
    expect(text(profile!.resources)).toContain(':bedrock:*::foundation-model/anthropic.claude-3-haiku-20240307-v1:0');
    expect(text([model, profile])).not.toMatch(/foundation-model\/\*|inference-profile\/\*/);
  }, 60_000);
});
