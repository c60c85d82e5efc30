// The functions behind the platform bus (functions/consumers.ts): one Lambda and one rule each, with
// retries and the shared dead-letter queue, so an event is neither lost nor left to a single attempt.
import { Duration, NestedStack } from 'aws-cdk-lib';
import { type EventPattern, type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { rulePattern } from '../functions/platform/bus-envelope.js';
import type { BusConsumer } from '../functions/platform/route.js';
import { type PlatformResources, grantFunction } from './grants.js';
import { PlatformFunction } from './platform-function.js';

export interface BusConsumersProps {
  consumers: BusConsumer[];
  bus: IEventBus;
  deadLetterQueue: IQueue;
  resources: PlatformResources;
  environment: Record<string, string>;
}

export class BusConsumers extends NestedStack {
  readonly bindings: { consumer: BusConsumer; fn: PlatformFunction; rule: Rule }[];

  constructor(scope: Construct, id: string, props: BusConsumersProps) {
    super(scope, id, { description: 'Platform: functions behind the platform-events bus' });
    this.bindings = props.consumers.map((consumer) => {
      const fn = PlatformFunction.fromSpec(this, consumer, props.environment);
      grantFunction(fn, consumer, props.resources);
      // A consumer throws to ask for another attempt; Lambda retries those, then parks the event with the others.
      fn.configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(props.deadLetterQueue) });
      const rule = new Rule(this, `${consumer.name}Rule`, {
        eventBus: props.bus,
        eventPattern: rulePattern(consumer) as unknown as EventPattern,
        targets: [new LambdaFunction(fn, { deadLetterQueue: props.deadLetterQueue, retryAttempts: 4, maxEventAge: Duration.hours(2) })],
      });
      return { consumer, fn, rule };
    });
  }
}
