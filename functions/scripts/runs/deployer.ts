// Building and activating versions through the ScriptRuntime port: deploy (and rollback) moves `live`;
// a test run of a never-deployed script builds the latest version without activating it.
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { ConflictError, UpstreamError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import type { Artifact, Script, ScriptVersion } from '../model.js';
import { prepareCode } from './prepare.js';
import { type DependencyTree, type Deployment, type PreparedCode, type ScriptRuntime, configKey } from './runtime-port.js';
import type { ScriptStore } from '../store.js';
import type { VersionCode } from '../authoring/version-code.js';

/** A deploy that has not finished in this long died with its process; another may start. */
const staleDeployMs = 5 * 60 * 1000;

interface Checked {
  existing?: Artifact;
  prepared?: PreparedCode;
}

/** A later instant than `previous`, so optimistic checks on `updatedAt` always see a change. */
export const after = (now: string, previous: string) => (now > previous ? now : new Date(Date.parse(previous) + 1).toISOString());

/** Where a version's installed packages come from (dependencies.ts). */
export interface PackageTrees {
  treeOf(version: Pick<ScriptVersion, 'dependencies'>): DependencyTree | undefined;
}

export function createDeployer(deps: {
  store: ScriptStore;
  runtime: () => ScriptRuntime;
  packages: () => PackageTrees;
  code: VersionCode;
  clock: Clock;
  /** The interpreter that checks Python code (the area's `python` setting). */
  python: string;
}) {
  const { store, clock } = deps;
  const prepared = async (script: Script, version: ScriptVersion) => prepareCode(script.runtime, await deps.code.read(version), deps.python);

  /** Reuses an artifact built with the script's current timeout and memory; otherwise reads the code, so a syntax error throws before anything changes. */
  async function check(script: Script, version: ScriptVersion): Promise<Checked> {
    const existing = version.artifact?.configKey === configKey(script.config.timeout, script.config.memory) ? version.artifact : undefined;
    return existing ? { existing } : { prepared: await prepared(script, version) };
  }

  const build = (script: Script, version: ScriptVersion, activate: boolean, checked: Checked): Promise<Deployment> =>
    deps.runtime().deploy({
      scriptId: script.scriptId,
      version: version.version,
      runtime: script.runtime,
      code: async () => checked.prepared ?? prepared(script, version),
      codeHash: version.codeHash,
      dependencies: deps.packages().treeOf(version),
      timeoutSeconds: script.config.timeout,
      memoryMb: script.config.memory,
      activate,
      existing: checked.existing,
    });

  return {
    /** The artifact a test run of `version` executes; built once per version and config. */
    async testBuild(script: Script, version: ScriptVersion): Promise<Artifact> {
      const checked = await check(script, version);
      if (checked.existing) return checked.existing;
      const { artifact } = await build(script, version, false, checked);
      await store.setArtifact(script.scriptId, version.version, artifact);
      return artifact;
    },

    /** Makes `version` the single active one (deploying an older version is the rollback). */
    async deploy(script: Script, version: ScriptVersion): Promise<Script> {
      const startedAt = after(clock.nowIso(), script.updatedAt);
      if (script.deploymentStatus === 'deploying' && script.deployingSince && Date.parse(startedAt) - Date.parse(script.deployingSince) < staleDeployMs) {
        throw new ConflictError(`script ${script.scriptId} is being deployed; try again when that deploy has finished`, { scriptId: script.scriptId });
      }
      const checked = await check(script, version);
      try {
        await store.update(
          script.scriptId,
          { deploymentStatus: 'deploying', deployingSince: startedAt, updatedAt: startedAt },
          { updatedAt: script.updatedAt },
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError(`script ${script.scriptId} changed while deploying; try again`, { scriptId: script.scriptId });
        throw error;
      }
      let deployment: Deployment;
      try {
        deployment = await build(script, version, true, checked);
      } catch (error) {
        await store.update(
          script.scriptId,
          { deploymentStatus: 'failed', deployingSince: undefined, updatedAt: after(clock.nowIso(), startedAt) },
          { deployingSince: startedAt },
        );
        throw new UpstreamError(`deploying version ${version.version} failed: ${(error as Error).message}`, {
          scriptId: script.scriptId,
          version: version.version,
        });
      }
      const deployedAt = after(clock.nowIso(), startedAt);
      await store.setArtifact(script.scriptId, version.version, deployment.artifact, deployedAt);
      const patch = {
        deploymentStatus: 'deployed' as const,
        deployingSince: undefined,
        activeVersion: version.version,
        activeSemver: version.semver,
        deploymentId: newId('dep'),
        serverlessFunctionName: deployment.functionName,
        serverlessFunctionArn: deployment.functionArn,
        deployedAt,
        updatedAt: deployedAt,
      };
      await store.update(script.scriptId, patch, { deployingSince: startedAt });
      return { ...script, ...patch };
    },
  };
}

export type Deployer = ReturnType<typeof createDeployer>;
