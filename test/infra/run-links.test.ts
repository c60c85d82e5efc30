// Durable runs' links on AWS: every function that may open a wait (it writes the run journal) is told the console's
// address, which serves the approval page and forwards /api/* to the API (signed callback URLs); no other function is.
import type { Stack } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { busConsumers } from '../../functions/consumers.js';
import { routeTables } from '../../functions/platform/route.js';
import { deployedRoutes } from '../../functions/routes.js';
import { PlatformStack } from '../../lib/platform-stack.js';
import { type Json, Synthesized, appWithoutBundling } from './synthesized.js';

const writesJournal = (declared: Parameters<typeof routeTables>[0]) => routeTables(declared).scriptSteps === 'write';

describe('infra: links of durable runs', () => {
  let s: Synthesized;
  let consoleUrl: unknown;

  /** A function's CALLBACK_BASE_URL as the parent stack spells it (a nested stack's parameters followed back). */
  const linkBase = (fn: LambdaFunction): unknown => {
    const { scope, props } = s.fn(fn);
    const resolveIn = (value: unknown, within: Stack): unknown =>
      Array.isArray(value)
        ? value.map((item) => resolveIn(item, within))
        : value && typeof value === 'object' && 'Ref' in value
          ? s.resolve(within, value)
          : value && typeof value === 'object'
            ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveIn(item, within)]))
            : value;
    return resolveIn((props.Environment?.Variables as Json | undefined)?.CALLBACK_BASE_URL, scope);
  };

  beforeAll(() => {
    // Prepare
    const app = appWithoutBundling(false);
    const stack = new PlatformStack(app, 'PlatformStack');
    // Act
    s = new Synthesized(stack);
    consoleUrl = s.parent.toJSON().Outputs.ConsoleUrl.Value;
  });

  it('points the links of every route that writes the run journal at the console, and gives other routes none', () => {
    // Prepare
    const writers = deployedRoutes.filter(writesJournal).map((route) => route.operation);
    // The routes known to open waits or continue runs are among them: the rule covers what makes links.
    expect(writers).toEqual(
      expect.arrayContaining([
        'executeScript',
        'restExecuteScript',
        'runFlow',
        'rerunExecution',
        'replayExecutions',
        'completeSignedCallback',
        'decideApproval',
      ]),
    );
    for (const route of deployedRoutes) {
      // Act
      const value = linkBase(s.binding(route.operation).fn);
      // Assess
      if (writers.includes(route.operation)) expect(value, route.operation).toEqual(consoleUrl);
      else expect(value, route.operation).toBeUndefined();
    }
  });

  it("points the links of the bus consumers that continue runs and of Lambda-deployed scripts' checkpoints at the console", () => {
    // Act
    const consumers = s.stack.consumers.bindings.map(({ consumer, fn }) => [consumer.name, writesJournal(consumer), linkBase(fn)] as const);
    // Assess
    expect(consumers.filter(([, writes]) => writes).map(([name]) => name)).toEqual(expect.arrayContaining(['wakeDurableRuns', 'dispatchEvent', 'runFlows']));
    for (const [name, writes, value] of consumers) expect(value, name).toEqual(writes ? consoleUrl : undefined);
    expect(busConsumers.length).toBe(consumers.length);
    expect(linkBase(s.stack.scriptResourceCall)).toEqual(consoleUrl);
    expect(linkBase(s.stack.api.authorizerFunction)).toBeUndefined();
  });

  it("spells the console's address as its CloudFront distribution's https URL", () => {
    // Assess
    expect(consoleUrl).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^Console/), expect.stringMatching(/^Outputs\..*DomainName$/)] }]],
    });
  });
});
