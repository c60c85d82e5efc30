// Template builds on AWS: one CodeBuild project whose buildspec fetches the commit, builds it with a clean
// environment and publishes the output to the pages bucket under the site's prefix; its state changes go over
// EventBridge (default bus) to the function that records them (functions/consumers.ts: serviceEventConsumers).
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BuildSpec, ComputeType, LinuxBuildImage, Project } from 'aws-cdk-lib/aws-codebuild';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { buildJobVariables as v, manifestKey } from '../functions/adapters/aws/codebuild-template-builder.js';
import type { ServiceEventConsumer } from '../functions/platform/route.js';
import { type PlatformResources, grantFunction } from './grants.js';
import { PlatformFunction } from './platform-function.js';

export interface TemplateBuildsProps {
  pagesBucket: IBucket;
  /** A build's whole time limit (CodeBuild's own timeout; at least 5 minutes). */
  timeout?: Duration;
}

/** Fails the build unless `$1` (resolved through symlinks) lies inside the checkout. */
const insideCheckout = 'inside() { case "$(realpath -e "$1")/" in "$ROOT"/*) ;; *) echo "$2 leads outside the repository checkout"; exit 1;; esac; }';

/** The buildspec: every value of the job arrives as an environment variable and is only ever quoted. */
export function templateBuildSpec() {
  return {
    version: '0.2',
    env: { shell: 'bash' },
    phases: {
      build: {
        commands: [
          [
            'set -euo pipefail',
            insideCheckout,
            'ROOT="$(mktemp -d)/src"; mkdir -p "$ROOT"; ROOT="$(realpath "$ROOT")"; cd "$ROOT"',
            'git init -q',
            `GIT_TERMINAL_PROMPT=0 GIT_ALLOW_PROTOCOL=https git fetch --depth 1 --no-tags "$${v.repository}" "$${v.gitHash}"`,
            'git checkout -q FETCH_HEAD',
            `inside "$ROOT/$${v.templatePath}" templatePath; TEMPLATE_DIR="$(realpath -e "$ROOT/$${v.templatePath}")"`,
            'inside "$TEMPLATE_DIR/template.json" template.json; MANIFEST="$(realpath -e "$TEMPLATE_DIR/template.json")"',
            `BUILD_COMMAND="$(jq -er '.build.buildCommand | strings' "$MANIFEST")"`,
            `OUTPUT_DIR="$(jq -er '.build.outputDirectory | strings' "$MANIFEST")"`,
            'cd "$TEMPLATE_DIR"',
            'if [ -f package-lock.json ] || [ -f npm-shrinkwrap.json ]; then npm ci --ignore-scripts --no-audit --no-fund; fi',
            // NUL-separated NAME=value pairs: template.json's variables, then the installation's NEXT_PUBLIC_ values.
            `mapfile -d '' VARS < <(jq -j '(.build.environmentVariables // {}) | to_entries[] | "\\(.key)=\\(.value)\\u0000"' "$MANIFEST"; printf %s "$${v.publicEnv}" | base64 -d | jq -j 'to_entries[] | "\\(.key)=\\(.value)\\u0000"')`,
            'env -i PATH="$PATH" HOME="$HOME" CI=true NODE_ENV=production "${VARS[@]}" sh -c "$BUILD_COMMAND"',
            'inside "$TEMPLATE_DIR/$OUTPUT_DIR" outputDirectory; OUT="$(realpath -e "$TEMPLATE_DIR/$OUTPUT_DIR")"',
            'while IFS= read -r -d "" link; do inside "$link" "output symlink ${link#$OUT/}"; done < <(find "$OUT" -type l -print0)',
            '[ -n "$(find -L "$OUT" -type f -print -quit)" ] || { echo "outputDirectory is empty after the build"; exit 1; }',
            // Uploaded aside first: a failed upload never touches the served prefix.
            `aws s3 sync "$OUT" "s3://$PAGES_BUCKET/_builds/$${v.buildId}/" --only-show-errors`,
            `aws s3 sync "s3://$PAGES_BUCKET/_builds/$${v.buildId}/" "s3://$PAGES_BUCKET/$${v.subdomain}/" --delete --only-show-errors`,
            `aws s3 rm --recursive "s3://$PAGES_BUCKET/_builds/$${v.buildId}/" --only-show-errors`,
            `aws s3 cp "$MANIFEST" "s3://$PAGES_BUCKET/${manifestKey(`$${v.buildId}`)}" --only-show-errors`,
          ].join('\n'),
        ],
      },
    },
  };
}

export class TemplateBuilds extends Construct {
  readonly project: Project;
  readonly logGroup: LogGroup;
  /** Records build ends; set by routeStateChanges. */
  stateFunction?: PlatformFunction;

  constructor(scope: Construct, id: string, props: TemplateBuildsProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.project = new Project(this, 'Project', {
      description: 'Builds template pages from a repository commit into the pages bucket',
      buildSpec: BuildSpec.fromObject(templateBuildSpec()),
      environment: { buildImage: LinuxBuildImage.STANDARD_7_0, computeType: ComputeType.SMALL },
      environmentVariables: { PAGES_BUCKET: { value: props.pagesBucket.bucketName } },
      timeout: props.timeout ?? Duration.minutes(10),
      logging: { cloudWatch: { logGroup: this.logGroup } },
    });
    props.pagesBucket.grantReadWrite(this.project);
  }

  /** The function that records build ends, behind a rule for this project's final states. */
  routeStateChanges(consumer: ServiceEventConsumer, resources: PlatformResources, environment: Record<string, string>, deadLetterQueue: IQueue): PlatformFunction {
    const fn = PlatformFunction.fromSpec(this, consumer, environment);
    grantFunction(fn, consumer, resources);
    new Rule(this, 'BuildStateRule', {
      description: 'Final states of template builds',
      eventPattern: {
        source: [consumer.source],
        detailType: [consumer.detailType],
        detail: { 'project-name': [this.project.projectName], 'build-status': ['SUCCEEDED', 'FAILED', 'FAULT', 'STOPPED', 'TIMED_OUT'] },
      },
      targets: [new LambdaFunction(fn, { deadLetterQueue, retryAttempts: 4, maxEventAge: Duration.hours(2) })],
    });
    this.stateFunction = fn;
    return fn;
  }
}
