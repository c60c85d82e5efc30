// Where scripts run: one Lambda function per script on AWS, a pool of warm sandboxed processes locally
// (functions/adapters/{aws,local}/script-*.ts). The service speaks only this port.
import type { Artifact, ExecutionError, RuntimeLabel } from '../model.js';
import type { RunGrant } from './run-grant.js';

/** A version's code as the runtime wrapper loads it (prepare.ts checks it first). */
export interface PreparedCode {
  fileName: 'script.cjs' | 'script.py';
  source: string;
}

/** What a runtime needs to mount a version's packages: the tree's key and its zip (a Lambda layer's layout). */
export interface DependencyTree {
  lockHash: string;
  archive: () => Promise<Uint8Array>;
}

export interface DeployRequest {
  scriptId: string;
  version: number;
  runtime: RuntimeLabel;
  /** Read only when something is built (not when an existing artifact is activated). */
  code: () => Promise<PreparedCode>;
  codeHash: string;
  /** The version's installed packages, when it declares any. */
  dependencies?: DependencyTree;
  timeoutSeconds: number;
  memoryMb: number;
  /** Move `live` to it (deploy, rollback); false builds it for a test run of an undeployed version. */
  activate: boolean;
  /** Built before with the same config: only `live` moves. */
  existing?: Artifact;
}

export interface Deployment {
  functionName: string;
  functionArn: string;
  artifact: Artifact;
}

/** `resources[name][method](params)` from inside a run; resolves to the call's data, throws a coded error. */
export type ResourceCallHandler = (name: string, method: string, params: Record<string, unknown>) => Promise<unknown>;

export interface InvokeRequest {
  scriptId: string;
  version: number;
  runtime: RuntimeLabel;
  codeHash: string;
  /** `live` for the script's active version; a test run names the built artifact's function version. */
  qualifier: string;
  /** The code again, for a local worker whose staged copy is gone (a restart). */
  code: () => Promise<PreparedCode>;
  dependencies?: DependencyTree;
  memoryMb: number;
  timeoutMs: number;
  event: { data: unknown; trigger: { type: string; source: string | null; event: unknown } };
  context: {
    scriptId: string;
    executionId: string;
    userId: string;
    customization: Record<string, unknown>;
    /** A durable script's run: the journal the wrapper replays (functions/durable/). */
    durable?: { journal: unknown };
  };
  /** For code running in this process: the run's resource calls, rules applied and tallied by the caller. */
  callResource: ResourceCallHandler;
  /** For code running in this process: each log line as it is printed (the outcome still carries them all). */
  onLog?: (line: PrintedLine) => void;
  /** For code running elsewhere: what the run may call and spend, to hand over signed. */
  grant: RunGrant;
}

/** What a run's resource calls came to. */
export interface RunUsage {
  calls: number;
  cost: number;
  /** A call was refused because the run had no cost allowance left: the run is cut for cost. */
  stoppedForCost: boolean;
}

/** A line the script printed, and the durable step it was printed in (none outside steps). */
export interface PrintedLine {
  text: string;
  step?: string;
}

export interface InvokeOutcome {
  /** `suspended`: a durable run's code waits (the wrapper ended the invocation at a wait). */
  status: 'success' | 'error' | 'timeout' | 'suspended';
  noOp?: boolean;
  /** The handler's return value as JSON text (at most 6 MB). */
  outputJson: string;
  error: ExecutionError | null;
  logs: PrintedLine[];
  /** Measured handler time, ms. */
  duration: number;
  /** Measured peak resident memory, MB. */
  memoryUsed: number;
  /** Set when the run's resource calls were tallied outside this process (not through `callResource`). */
  resourceUsage?: RunUsage;
}

export interface ScriptRuntime {
  deploy(request: DeployRequest): Promise<Deployment>;
  invoke(request: InvokeRequest): Promise<InvokeOutcome>;
  /** Deletes everything deployed for the script. */
  remove(scriptId: string): Promise<void>;
  /** Deletes what was made from the installed tree `lockHash` (an unpacked copy, a layer) once no version uses it. */
  removeDependencyTree(lockHash: string): Promise<void>;
}

/** The alias deploy and rollback move; runs of the active version go through it. */
export const liveAlias = 'live';

/** Runtime settings an artifact is frozen with, as Lambda freezes them in a published version. */
export const configKey = (timeoutSeconds: number, memoryMb: number) => `${timeoutSeconds}s-${memoryMb}mb`;
