// The payout function (functions/payments/routes.ts: payoutRunnerFunction) and its hourly schedule; threshold
// crossings invoke it directly (the `payoutRunner` capability).
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { payoutRunnerFunction } from '../functions/payments/routes.js';
import { type PlatformResources, grantFunction } from './grants.js';
import { PlatformFunction } from './platform-function.js';

export class Payouts extends Construct {
  readonly fn: PlatformFunction;

  constructor(scope: Construct, id: string, props: { environment: Record<string, string> }) {
    super(scope, id);
    this.fn = PlatformFunction.fromSpec(this, payoutRunnerFunction, props.environment);
    new Rule(this, 'Schedule', {
      description: 'Pays owners what reference-client payments owe them',
      schedule: Schedule.rate(Duration.hours(1)),
      targets: [new LambdaFunction(this.fn)],
    });
  }

  /** Granted once the platform's resources exist: its grants name tables and secrets built after it. */
  grant(resources: PlatformResources): void {
    grantFunction(this.fn, payoutRunnerFunction, resources);
  }
}
