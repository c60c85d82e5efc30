// EventBridge Scheduler: the stack's group (one schedule per flow or script schedule) and the role schedules assume.
import { Stack } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';

export interface SchedulerProps {
  /** Schedules fire by putting an event on the platform bus; rules route it like any other event. */
  eventBus: IEventBus;
}

export class Scheduler extends Construct {
  readonly group: CfnScheduleGroup;
  readonly groupName: string;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: SchedulerProps) {
    super(scope, id);
    // The stack's name: two stages in one account and region keep their schedules apart.
    this.groupName = Stack.of(this).stackName;
    this.group = new CfnScheduleGroup(this, 'Group', { name: this.groupName });
    this.role = new Role(this, 'Role', {
      description: 'Assumed by EventBridge Scheduler when a platform schedule fires',
      // Confused-deputy guard: only schedules of this account may assume it.
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } } }),
    });
    props.eventBus.grantPutEventsTo(this.role);
  }
}
