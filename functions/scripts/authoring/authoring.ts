// Editing help: the script behind a flow (getFlowScript, modifyFlowScript with copy-on-write) and lintScript.
import { NotFoundError } from '#platform/errors.js';
import { type LintContext, type LintReport, durableWarnings, lintScript } from './lint/lint.js';
import type { FlowScripts, ResourceCatalog } from '../ports.js';
import { type Script, type ScriptVersion, withConcurrencyScope } from '../model.js';
import { prepareCode } from '../runs/prepare.js';
import type { LintRequest } from '../schemas.js';
import type { ScriptService } from '../service.js';
import type { ScriptStore } from '../store.js';
import type { VersionCode } from './version-code.js';

export function createAuthoring(deps: {
  flows: FlowScripts;
  scripts: ScriptService;
  store: ScriptStore;
  code: VersionCode;
  catalog: ResourceCatalog;
  pythonFacts: LintContext['pythonFacts'];
  /** The interpreter that checks Python code (the area's `python` setting). */
  python: string;
}) {
  const { scripts } = deps;

  async function flowScript(userId: string, flowId: string) {
    const link = await deps.flows.scriptOf(userId, flowId);
    if (!link) throw new NotFoundError('flowId', flowId, 'flow');
    return scripts.readable(userId, link.scriptId);
  }

  return {
    async getFlowScript(userId: string, flowId: string) {
      const script = await flowScript(userId, flowId);
      const version = await deps.store.getVersion(script.scriptId, script.activeVersion ?? script.latestVersion);
      if (!version) throw new NotFoundError('scriptId', script.scriptId, 'script version');
      return {
        code: await deps.code.read(version),
        version: version.version,
        scriptId: script.scriptId,
        scriptName: script.name,
        description: script.description,
        isOwned: script.ownerId === userId,
      };
    },

    /** The owner's script gets a new deployed version; someone else's is copied to the caller first, and the flow moves to the copy. */
    async modifyFlowScript(userId: string, input: { flowId: string; newCode: string; commitMessage?: string }) {
      const script = await flowScript(userId, input.flowId);
      await prepareCode(script.runtime, input.newCode, deps.python);
      if (script.ownerId === userId) {
        const { version } = await scripts.createVersion(userId, script.scriptId, { code: input.newCode, message: input.commitMessage });
        await scripts.deploy(userId, script.scriptId, { version: version.version });
        return { copied: false, scriptId: script.scriptId, versionId: version.versionId, version: version.version };
      }
      // The copy declares the packages the flow ran with; they are installed again for the caller.
      const packages = await scripts.dependenciesOf(script);
      const copy = await scripts.create(userId, {
        name: `${script.name} (copy)`.slice(0, 100),
        description: script.description,
        runtime: script.runtime,
        code: input.newCode,
        config: withConcurrencyScope(script.config),
        category: script.category ?? undefined,
        tags: script.tags,
        private: true,
        ...(packages && { dependencies: packages.declared }),
      });
      await scripts.deploy(userId, copy.script.scriptId, { version: copy.version.version });
      await deps.flows.repoint(userId, input.flowId, copy.script.scriptId);
      return { copied: true, scriptId: copy.script.scriptId, versionId: copy.version.versionId, version: copy.version.version };
    },

    /** What createScript and deployScript warn about (`warnings`): a durable script's clock and random reads outside steps. */
    async warnings(script: Pick<Script, 'config' | 'runtime'>, code: string | Pick<ScriptVersion, 'scriptId' | 'codeHash' | 'code'>) {
      if (script.config?.durable !== true) return [];
      return durableWarnings(typeof code === 'string' ? code : await deps.code.read(code), script.runtime, deps.pythonFacts);
    },

    async lint(userId: string, request: LintRequest): Promise<LintReport> {
      const config = request.scriptId ? (await scripts.owned(userId, request.scriptId)).config : undefined;
      return lintScript(request, {
        allowedResources: config?.allowedResources,
        durable: config?.durable === true,
        methodsOf: (name) => deps.catalog.methodsOf(userId, name),
        pythonFacts: deps.pythonFacts,
      });
    },
  };
}

export type Authoring = ReturnType<typeof createAuthoring>;
