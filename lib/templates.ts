// Template builds on AWS: one CodeBuild project whose buildspec fetches the commit, builds it with a clean
// environment and publishes the output to the pages bucket under the site's prefix; its state changes go over
// EventBridge (default bus) to the function that records them (functions/consumers.ts: serviceEventConsumers).
// The tenant's build command runs in a container of its own with no network, so neither the project role's
// credentials nor the metadata endpoints are in reach; the project role itself can touch no page. Publishing
// assumes the publish role with a session policy naming only this build's prefixes.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BuildSpec, ComputeType, LinuxBuildImage, Project } from 'aws-cdk-lib/aws-codebuild';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
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

/** The image the build command runs in (Node and npm, as locally); from ECR Public, so no Docker Hub pull limits. */
export const buildCommandImage = 'public.ecr.aws/docker/library/node:20-bookworm';

/** What publishing may touch: this build's site, its staging and manifest prefixes (jq, from the job's variables). */
const sessionPolicy = [
  '{Version: "2012-10-17", Statement: [',
  '{Effect: "Allow", Action: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"], Resource: ["\\($bucket)/\\($site)/*", "\\($bucket)/_builds/\\($build)/*", "\\($bucket)/_meta/\\($build)/*"]},',
  '{Effect: "Allow", Action: "s3:ListBucket", Resource: $bucket, Condition: {StringLike: {"s3:prefix": ["\\($site)/*", "_builds/\\($build)/*"]}}}]}',
].join(' ');

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
            // The build command: its own container, no network (no credentials endpoint, no metadata), unprivileged.
            'chown -R 1000:1000 "$ROOT"',
            'DOCKER_ENV=(-e CI=true -e NODE_ENV=production -e HOME=/tmp); for pair in "${VARS[@]}"; do DOCKER_ENV+=(-e "$pair"); done',
            'docker run --rm --network none --user 1000:1000 --cap-drop ALL --security-opt no-new-privileges --pids-limit 512 --tmpfs /tmp ' +
              '-v "$ROOT:$ROOT" -w "$TEMPLATE_DIR" "${DOCKER_ENV[@]}" "$BUILD_IMAGE" sh -c "$BUILD_COMMAND"',
            'inside "$TEMPLATE_DIR/$OUTPUT_DIR" outputDirectory; OUT="$(realpath -e "$TEMPLATE_DIR/$OUTPUT_DIR")"',
            'while IFS= read -r -d "" link; do inside "$link" "output symlink ${link#$OUT/}"; done < <(find "$OUT" -type l -print0)',
            '[ -n "$(find -L "$OUT" -type f -print -quit)" ] || { echo "outputDirectory is empty after the build"; exit 1; }',
            // Credentials for this build's prefixes only, from here on.
            `SCOPE="$(jq -nc --arg bucket "$PAGES_BUCKET_ARN" --arg site "$${v.subdomain}" --arg build "$${v.buildId}" '${sessionPolicy}')"`,
            `CREDS="$(aws sts assume-role --role-arn "$PUBLISH_ROLE_ARN" --role-session-name "build-$${v.buildId}" --policy "$SCOPE" --query Credentials --output json)"`,
            'export AWS_ACCESS_KEY_ID="$(jq -r .AccessKeyId <<<"$CREDS")" AWS_SECRET_ACCESS_KEY="$(jq -r .SecretAccessKey <<<"$CREDS")" AWS_SESSION_TOKEN="$(jq -r .SessionToken <<<"$CREDS")"',
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
  /** The only role that writes pages; builds assume it scoped to their own prefixes. */
  readonly publishRole: Role;
  readonly logGroup: LogGroup;
  /** Records build ends; set by routeStateChanges. */
  stateFunction?: PlatformFunction;

  constructor(scope: Construct, id: string, props: TemplateBuildsProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    // The project's own role: logs only (CodeBuild adds them) and assuming the publish role.
    const projectRole = new Role(this, 'ProjectRole', { assumedBy: new ServicePrincipal('codebuild.amazonaws.com') });
    this.publishRole = new Role(this, 'PublishRole', {
      assumedBy: projectRole,
      description: 'Publishes one template build into the pages bucket, scoped per build by a session policy',
    });
    props.pagesBucket.grantReadWrite(this.publishRole);
    this.project = new Project(this, 'Project', {
      description: 'Builds template pages from a repository commit into the pages bucket',
      buildSpec: BuildSpec.fromObject(templateBuildSpec()),
      role: projectRole,
      // Privileged for the Docker daemon the build command's container needs.
      environment: { buildImage: LinuxBuildImage.STANDARD_7_0, computeType: ComputeType.SMALL, privileged: true },
      environmentVariables: {
        PAGES_BUCKET: { value: props.pagesBucket.bucketName },
        PAGES_BUCKET_ARN: { value: props.pagesBucket.bucketArn },
        PUBLISH_ROLE_ARN: { value: this.publishRole.roleArn },
        BUILD_IMAGE: { value: buildCommandImage },
      },
      timeout: props.timeout ?? Duration.minutes(10),
      logging: { cloudWatch: { logGroup: this.logGroup } },
    });
  }

  /** The function that records build ends, behind a rule for this project's final states. */
  routeStateChanges(
    consumer: ServiceEventConsumer,
    resources: PlatformResources,
    environment: Record<string, string>,
    deadLetterQueue: IQueue,
  ): PlatformFunction {
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
