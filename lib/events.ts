// The platform event bus and the dead-letter queue that later dispatcher rules will use.
import { Duration } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export class Events extends Construct {
  readonly bus: EventBus;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // DESIGN.md §1 names the bus; one platform per account and region.
    this.bus = new EventBus(this, 'Bus', { eventBusName: 'platform-events' });
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
  }
}
