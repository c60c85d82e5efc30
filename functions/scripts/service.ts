// The scripts area's rules and state machine, behind both the REST and the SDK shapes.
import type { z } from 'zod';
import type { CatalogStamps } from '#platform/catalog-stamps.js';
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import { logger } from '#platform/logger.js';
import { scriptExecuteScope } from '#platform/scopes.js';
import { flowControlNames } from '#platform/flow-control.js';
import type { DependencyService } from './packages/dependencies.js';
import { type Deployer, after } from './runs/deployer.js';
import {
  type DeclaredDependencies,
  type Installation,
  type Pricing,
  type Script,
  type ScriptConfig,
  type ScriptVersion,
  type VersionDependencies,
  limits,
} from './model.js';
import type { EventSubscriptions, KeyIssuer } from './ports.js';
import { prepareCode } from './runs/prepare.js';
import type { ScriptRuntime } from './runs/runtime-port.js';
import type { CreateScriptInput, UpdateScriptInput } from './schemas.js';
import { compareSemver, nextPatch } from '#platform/semver.js';
import type { ScriptStore } from './store.js';
import type { VersionCode } from './authoring/version-code.js';

const defaultConfig: ScriptConfig = {
  timeout: limits.timeoutSeconds.default,
  memory: limits.memoryMb.default,
  maxCostPerExecution: limits.maxCostPerExecution.default,
  maxExecutionsPerDay: limits.maxExecutionsPerDay.default,
  allowedResources: [],
};

/** A config with a patch applied; `null` removes an option (`concurrency`, debounce, batch, or one of flow control's). */
function patchedConfig(config: ScriptConfig, patch: z.output<typeof UpdateScriptInput>['config']): ScriptConfig {
  const merged: Record<string, unknown> = { ...config, ...patch };
  for (const name of ['concurrency', 'debounce', 'batch', ...flowControlNames]) if (merged[name] === null || merged[name] === undefined) delete merged[name];
  if (merged.debounce && merged.batch)
    throw new ValidationError('config.batch', merged.batch, 'a script gathers its triggers by debounce or by batch, not both');
  return merged as unknown as ScriptConfig;
}

/** The scope of the key createScript hands out (the interface Authentication 2). */

const listing = (status: Script['status'], isPrivate: boolean) => (status === 'published' && !isPrivate ? ('public' as const) : undefined);

/** What a new version declares: packages (and a node lockfile); undefined keeps the previous version's. */
interface DeclaredPackages {
  dependencies?: DeclaredDependencies;
  lockfile?: string;
}

export function createScriptService(deps: {
  store: ScriptStore;
  deployer: Deployer;
  runtime: () => ScriptRuntime;
  keys: KeyIssuer;
  subscriptions: EventSubscriptions;
  clock: Clock;
  packages: () => DependencyService;
  code: VersionCode;
  /** The interpreter that checks Python code (the area's `python` setting). */
  python: string;
  /** A script created, changed, deployed, removed, installed or uninstalled changes agent tools: its owner's or installer's stamp moves. */
  catalog: Pick<CatalogStamps, 'changed'>;
}) {
  const { store, deployer, clock } = deps;

  /**
   * Installs and locks what `declared` names; without a declaration the version keeps `previous`. Either way the
   * version's tree is held for it: pass the result to `written`, which lets it go if the version is not written.
   */
  async function lockPackages(userId: string, runtime: Script['runtime'], code: string, declared: DeclaredPackages, previous?: VersionDependencies) {
    if (declared.dependencies === undefined) {
      if (declared.lockfile !== undefined) throw new ValidationError('lockfile', '(lockfile)', 'a lockfile comes with the dependencies it locks');
      if (previous) await deps.packages().keep(previous);
      return previous;
    }
    return deps.packages().lock(userId, runtime, Buffer.byteLength(code), declared.dependencies, declared.lockfile);
  }

  /** Writes a version whose tree `lockPackages` holds; a failed write releases it. */
  async function written<T>(dependencies: VersionDependencies | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (dependencies) await deps.packages().release(dependencies);
      throw error;
    }
  }

  const checkSemver = (script: Script, semver: string | undefined) => {
    if (semver !== undefined && compareSemver(semver, script.latestSemver) <= 0) {
      throw new ValidationError('version', semver, `version must be greater than the latest, ${script.latestSemver}`, { latest: script.latestSemver });
    }
  };

  /** Owner, marketplace visitor or installer may read; anyone else learns nothing (NOT_FOUND). */
  async function readable(userId: string, scriptId: string): Promise<Script> {
    const script = await store.get(scriptId);
    if (script && (script.ownerId === userId || script.listed || (await store.getInstallation(scriptId, userId)))) return script;
    throw new NotFoundError('scriptId', scriptId, 'script');
  }

  /** Only the owner changes a script; others who can see it get FORBIDDEN. */
  async function owned(userId: string, scriptId: string): Promise<Script> {
    const script = await readable(userId, scriptId);
    if (script.ownerId !== userId) throw new ForbiddenError(`only the owner of script ${scriptId} can change it`, { scriptId });
    return script;
  }

  async function saved(script: Script, patch: Partial<Script>): Promise<Script> {
    const updatedAt = after(clock.nowIso(), script.updatedAt);
    try {
      await store.update(script.scriptId, { ...patch, updatedAt }, { updatedAt: script.updatedAt });
    } catch (error) {
      if (isConditionFailure(error))
        throw new ConflictError(`script ${script.scriptId} changed meanwhile; read it again and retry`, { scriptId: script.scriptId });
      throw error;
    }
    return { ...script, ...patch, updatedAt };
  }

  /** The next version: its code stored first, then its item. */
  async function addVersion(script: Script, code: string, message: string | null, semver?: string, dependencies?: VersionDependencies): Promise<ScriptVersion> {
    checkSemver(script, semver);
    const version: ScriptVersion = {
      scriptId: script.scriptId,
      version: script.latestVersion + 1,
      versionId: newId('ver'),
      semver: semver ?? nextPatch(script.latestSemver),
      ...(await deps.code.put(script.scriptId, code)),
      message,
      createdAt: after(clock.nowIso(), script.updatedAt),
      deployedAt: null,
      ...(dependencies && { dependencies }),
    };
    try {
      await store.addVersion(script, version);
    } catch (error) {
      if (isConditionFailure(error))
        throw new ConflictError(`another version of script ${script.scriptId} was created meanwhile; try again`, { scriptId: script.scriptId });
      throw error;
    }
    return version;
  }

  async function versionOf(script: Script, selector: { version?: number; versionId?: string }): Promise<ScriptVersion> {
    if (selector.versionId) {
      const found = (await store.listVersions(script.scriptId)).find((version) => version.versionId === selector.versionId);
      if (!found) throw new NotFoundError('versionId', selector.versionId, 'version');
      return found;
    }
    const number = selector.version ?? script.latestVersion;
    const found = await store.getVersion(script.scriptId, number);
    if (!found) throw new NotFoundError('version', String(number));
    return found;
  }

  /**
   * After the items are gone: the deleted versions' code, and their trees that no other version uses. A failure
   * leaves blobs nothing points at, which cost storage only, so the delete still succeeds.
   */
  async function removeBlobs(versions: ScriptVersion[]) {
    const removals = await Promise.allSettled([deps.code.remove(versions), deps.packages().releaseAll(versions)]);
    for (const failed of removals.filter((removal) => removal.status === 'rejected')) {
      logger.error('removing the blobs of a deleted script failed', { scriptId: versions[0]?.scriptId, error: String(failed.reason) });
    }
  }

  /** A new script with its first version and the owner's installation, the version's tree held by `lockPackages`. */
  async function createWith(userId: string, input: z.output<typeof CreateScriptInput>, dependencies: VersionDependencies | undefined) {
    const now = clock.nowIso();
    const scriptId = newId('scr');
    const isPrivate = input.private ?? false;
    const code = await deps.code.put(scriptId, input.code);
    const key = await deps.keys.issue(userId, `script ${scriptId}`, [scriptExecuteScope(scriptId)]);
    const script: Script = {
      scriptId,
      ownerId: userId,
      name: input.name,
      description: input.description ?? '',
      runtime: input.runtime,
      config: patchedConfig(defaultConfig, input.config),
      category: input.category ?? null,
      tags: input.tags ?? [],
      isPrivate,
      pricing: null,
      status: 'draft',
      deploymentStatus: 'pending',
      activeVersion: null,
      latestVersion: 1,
      latestSemver: '1.0.0',
      deploymentId: null,
      serverlessFunctionName: null,
      serverlessFunctionArn: null,
      apiKeyId: key.keyId,
      installCount: 0,
      ratingSum: 0,
      reviewCount: 0,
      staffPick: false,
      system: false,
      totalExecutions: 0,
      successCount: 0,
      totalDuration: 0,
      totalCost: 0,
      createdAt: now,
      updatedAt: now,
      deployedAt: null,
      publishedAt: null,
      lastExecutedAt: null,
    };
    const version: ScriptVersion = {
      scriptId,
      version: 1,
      versionId: newId('ver'),
      semver: '1.0.0',
      ...code,
      message: 'initial version',
      createdAt: now,
      deployedAt: null,
      ...(dependencies && { dependencies }),
    };
    const installation: Installation = { scriptId, userId, installationId: newId('sin'), status: 'active', installedAt: now, customization: {} };
    try {
      await store.create(script, version, installation);
    } catch (error) {
      await deps.keys.revoke(userId, key.keyId);
      throw error;
    }
    await deps.catalog.changed(userId);
    return { script, version, installation, apiKey: key.apiKey };
  }

  return {
    readable,

    async create(userId: string, input: z.output<typeof CreateScriptInput>) {
      // A syntax error is refused with its line and column now rather than at deploy.
      await prepareCode(input.runtime, input.code, deps.python);
      const dependencies = await lockPackages(userId, input.runtime, input.code, input);
      return written(dependencies, () => createWith(userId, input, dependencies));
    },

    /** Newest first; REST's `deployed` filter means deploymentStatus deployed, its other values the status. */
    async listOwned(userId: string, status?: 'draft' | 'deployed' | 'published') {
      const scripts = (await store.listByOwner(userId)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      if (!status) return scripts;
      return scripts.filter((script) => (status === 'deployed' ? script.deploymentStatus === 'deployed' : script.status === status));
    },

    async update(userId: string, input: z.output<typeof UpdateScriptInput>) {
      const script = await owned(userId, input.scriptId);
      if (input.code !== undefined) await prepareCode(script.runtime, input.code, deps.python);
      const config = patchedConfig(script.config, input.config);
      const isPrivate = input.private ?? script.isPrivate;
      let updated = await saved(script, {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.tags !== undefined && { tags: input.tags }),
        ...(input.category !== undefined && { category: input.category }),
        ...(input.config !== undefined && { config }),
        isPrivate,
        listed: listing(script.status, isPrivate),
      });
      let version: ScriptVersion | undefined;
      if (input.code !== undefined || input.dependencies !== undefined) {
        const latest = await versionOf(updated, {});
        const code = input.code ?? (await deps.code.read(latest));
        const dependencies = await lockPackages(userId, script.runtime, code, input, latest.dependencies);
        version = await written(dependencies, () => addVersion(updated, code, input.changelog ?? null, undefined, dependencies));
        updated = { ...updated, latestVersion: version.version, latestSemver: version.semver, updatedAt: version.createdAt };
      }
      // Lambda freezes timeout and memory into each published version: the active one is rebuilt with the new values.
      const runtimeChanged = config.timeout !== script.config.timeout || config.memory !== script.config.memory;
      if (runtimeChanged && updated.activeVersion !== null)
        updated = await deployer.deploy(updated, await versionOf(updated, { version: updated.activeVersion }));
      await deps.catalog.changed(userId);
      return { script: updated, version };
    },

    async remove(userId: string, scriptId: string) {
      const script = await owned(userId, scriptId);
      const [installations, subscriptions] = await Promise.all([store.listInstallations(scriptId), deps.subscriptions.enabledCount(scriptId)]);
      const others = installations.filter((installation) => installation.userId !== userId);
      if (others.length || subscriptions) {
        throw new ConflictError(
          `script ${scriptId} has ${others.length} active installations by other users and ${subscriptions} active subscriptions; remove them first`,
          {
            scriptId,
            activeInstallations: others.length,
            activeSubscriptions: subscriptions,
          },
        );
      }
      const versions = await store.listVersions(scriptId);
      await deps.runtime().remove(scriptId);
      await store.remove(
        scriptId,
        versions.map((version) => version.version),
        installations.map((installation) => installation.userId),
      );
      if (script.apiKeyId) await deps.keys.revoke(userId, script.apiKeyId);
      await deps.catalog.changed(userId);
      await removeBlobs(versions);
      // Other users' installations refuse the delete, so none is ever left behind.
      return { installationsRemoved: installations.length, preservedInstallations: others.length };
    },

    async createVersion(userId: string, scriptId: string, input: { code: string; message?: string; semver?: string } & DeclaredPackages) {
      const script = await owned(userId, scriptId);
      await prepareCode(script.runtime, input.code, deps.python);
      checkSemver(script, input.semver);
      const dependencies = await lockPackages(userId, script.runtime, input.code, input, (await versionOf(script, {})).dependencies);
      return { script, version: await written(dependencies, () => addVersion(script, input.code, input.message ?? null, input.semver, dependencies)) };
    },

    /** The packages of the version that runs (the active one, else the latest), for getScript. */
    async dependenciesOf(script: Script): Promise<VersionDependencies | null> {
      return (await versionOf(script, { version: script.activeVersion ?? script.latestVersion })).dependencies ?? null;
    },

    /** One version's code for the owner only: a user who may see or installed the script gets FORBIDDEN, anyone else NOT_FOUND. */
    async versionCode(userId: string, scriptId: string, selector: number | string) {
      const script = await owned(userId, scriptId);
      const version =
        typeof selector === 'number'
          ? await store.getVersion(scriptId, selector)
          : (await store.listVersions(scriptId)).find((item) => item.semver === selector);
      if (!version) throw new NotFoundError('version', String(selector));
      return { script, version, code: await deps.code.read(version) };
    },

    async listVersions(userId: string, scriptId: string) {
      const script = await owned(userId, scriptId);
      return { script, versions: (await store.listVersions(scriptId)).sort((a, b) => b.version - a.version) };
    },

    async deploy(userId: string, scriptId: string, selector: { version?: number; versionId?: string }) {
      const script = await owned(userId, scriptId);
      const version = await versionOf(script, selector);
      const deployed = await deployer.deploy(script, version);
      await deps.catalog.changed(userId);
      return { script: deployed, version };
    },

    /** The interface publish requirements; deploys first when needed and publishes only if that succeeds. */
    async publish(userId: string, scriptId: string, input: { pricing?: Pricing; category?: string; tags?: string[] }) {
      let script = await owned(userId, scriptId);
      if (script.status !== 'draft')
        throw new ConflictError(`script ${scriptId} is ${script.status}; only a draft can be published`, { scriptId, status: script.status });
      if (!script.description.trim()) throw new ValidationError('description', script.description, 'publishing needs a description: set one with PATCH first');
      const candidate = script.activeVersion ?? script.latestVersion;
      if (!script.testedVersions?.has(candidate)) {
        throw new ConflictError(`publishing needs a successful execution of version ${candidate}; execute the script first`, { scriptId, version: candidate });
      }
      if (script.activeVersion === null) script = await deployer.deploy(script, await versionOf(script, { version: candidate }));
      const publishedAt = clock.nowIso();
      const published = await saved(script, {
        status: 'published',
        publishedAt,
        listed: listing('published', script.isPrivate),
        ...(input.pricing && { pricing: input.pricing }),
        ...(input.category && { category: input.category }),
        ...(input.tags && { tags: input.tags }),
      });
      await deps.catalog.changed(userId);
      return published;
    },

    async unpublish(userId: string, scriptId: string) {
      const script = await owned(userId, scriptId);
      if (script.status !== 'published') throw new ConflictError(`script ${scriptId} is ${script.status}, not published`, { scriptId, status: script.status });
      return saved(script, { status: 'draft', listed: undefined });
    },

    /** `customization`: the values of the template that installs the script, for `context.customization`. */
    async install(userId: string, scriptId: string, customization: Installation['customization'] = {}) {
      const script = await store.get(scriptId);
      if (!script || (script.ownerId !== userId && !script.listed)) throw new NotFoundError('scriptId', scriptId, 'script');
      const installation: Installation = { scriptId, userId, installationId: newId('sin'), status: 'active', installedAt: clock.nowIso(), customization };
      try {
        await store.install(installation, script.ownerId !== userId);
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError(`script ${scriptId} is already installed`, { scriptId });
        throw error;
      }
      await deps.catalog.changed(userId);
      return installation;
    },

    async uninstall(userId: string, scriptId: string) {
      const installation = await store.getInstallation(scriptId, userId);
      if (!installation) throw new NotFoundError('scriptId', scriptId, 'installation of script');
      const script = await store.get(scriptId);
      await store.uninstall(installation, Boolean(script && script.ownerId !== userId));
      await deps.catalog.changed(userId);
    },

    owned,
  };
}

export type ScriptService = ReturnType<typeof createScriptService>;
