// The platform event bus and the dead-letter queue of its rules.
import { Duration, Stack } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export class Events extends Construct {
  readonly bus: EventBus;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Named after the stack, so two stages deploy side by side in one account and region.
    this.bus = new EventBus(this, 'Bus', { eventBusName: `${Stack.of(this).stackName}-events` });
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
  }
}
