// Reads synthesized PlatformStack templates for test/infra/stack.test.ts, following nested-stack parameters to the parent.
import { readFileSync } from 'node:fs';
import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Role } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { SynthesisMessage } from 'aws-cdk-lib/cx-api';
import type { tables } from '../../functions/tables.js';
import type { AreaRoutes } from '../../lib/area-routes.js';
import type { PlatformStack } from '../../lib/platform-stack.js';

export type Json = Record<string, any>;

/** cdk.json's feature flags, so the tests synthesize what `cdk synth` does, minus bundling. */
const cdkContext = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;
export const appWithoutBundling = (validate = true) =>
  new App({ context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: validate });

export const logicalId = (element: unknown) => {
  const cfn = element as CfnElement;
  return cfn.stack.getLogicalId(cfn);
};

/** Reads a synthesized stack, following a nested stack's parameters back to what the parent passes in. */
export class Synthesized {
  readonly parent: Template;
  private readonly templates = new Map<Stack, Template>();

  constructor(readonly stack: PlatformStack) {
    this.parent = Template.fromStack(stack);
    for (const nested of [...stack.areas, stack.consumers]) this.templates.set(nested, Template.fromStack(nested));
  }

  template(scope: Stack): Template {
    return scope === this.stack ? this.parent : this.templates.get(scope)!;
  }

  area(name: string): AreaRoutes {
    return this.stack.areas.find((area) => area.area === name)!;
  }

  resource(scope: Stack, id: string): Json {
    return this.template(scope).toJSON().Resources[id];
  }

  /** `{Ref: parameter}` inside a nested stack becomes the parent's value for that parameter. */
  resolve(scope: Stack, value: unknown): unknown {
    if (scope === this.stack || !value || typeof value !== 'object' || !('Ref' in value)) return value;
    const nested = this.parent.toJSON().Resources[logicalId((scope as AreaRoutes).nestedStackResource)];
    return nested.Properties.Parameters[(value as { Ref: string }).Ref] ?? value;
  }

  fn(fn: LambdaFunction): { scope: Stack; props: Json; statements: { actions: string[]; resources: unknown[] }[] } {
    const scope = (fn.node.defaultChild as CfnElement).stack;
    const role = { Ref: logicalId((fn.role as Role).node.defaultChild) };
    // The default policy, any separate policy attached to the same role (e.g. selfInvoke's), and the managed policies CDK
    // moves statements to when the default one outgrows IAM's inline size (a function granted many tables).
    const policies = Object.values(this.template(scope).toJSON().Resources as Record<string, Json>).filter(
      (resource) =>
        ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy'].includes(resource.Type) &&
        JSON.stringify(resource.Properties.Roles ?? []).includes(JSON.stringify(role)),
    );
    const statements = policies
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .map((statement: Json) => ({
        actions: [statement.Action].flat(),
        resources: [statement.Resource].flat().map((resource) => this.resolve(scope, resource)),
      }));
    return { scope, props: this.resource(scope, logicalId(fn.node.defaultChild)).Properties, statements };
  }

  binding(operation: string) {
    return this.stack.areas.flatMap((area) => area.bindings).find((binding) => binding.route.operation === operation)!;
  }
}

export const tableArn = (s: Synthesized, name: keyof typeof tables) => ({ 'Fn::GetAtt': [logicalId(s.stack.data.tables[name].node.defaultChild), 'Arn'] });
export const allows = (statements: { actions: string[]; resources: unknown[] }[], action: string, resource: unknown) =>
  statements.some((statement) => statement.actions.includes(action) && statement.resources.some((r) => JSON.stringify(r) === JSON.stringify(resource)));
export const mentions = (statements: { resources: unknown[] }[], resource: unknown) =>
  statements.some((statement) => JSON.stringify(statement.resources).includes(JSON.stringify(resource)));

/** One line per message, enough to see which rule fired where. */
export const describeMessages = (messages: SynthesisMessage[]) => messages.map((m) => `${m.id}: ${String(m.entry.data).slice(0, 80)}`);
