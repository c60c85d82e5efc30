// Narrow ports the scripts area depends on, implemented by other areas (or by fakes in unit tests).

/** Keys minted by the platform for a user: the `scripts:execute` key a script hands out at creation. */
export interface KeyIssuer {
  issue(userId: string, name: string, scopes: string[]): Promise<{ keyId: string; apiKey: string }>;
  revoke(userId: string, keyId: string): Promise<void>;
}

/** The account's monthly budget (`monthlyBudgetUsd`, default 100). */
export interface BudgetSource {
  monthlyBudgetUsd(userId: string): Promise<number>;
}

/** The events area's subscriptions of a script: a script with enabled ones cannot be deleted. */
export interface EventSubscriptions {
  enabledCount(scriptId: string): Promise<number>;
}

/** The flows area's view of which script a flow runs, for getFlowScript and modifyFlowScript. */
export interface FlowScripts {
  /** The flow's script, if `userId` owns the flow; undefined for unknown flows and other users' flows. */
  scriptOf(userId: string, flowId: string): Promise<{ scriptId: string } | undefined>;
  /** Points the flow at another script: the copy made by copy-on-write. */
  repoint(userId: string, flowId: string, scriptId: string): Promise<void>;
}

/** Method names of a user's installed resource, by its installed name or id; undefined when not installed. */
export interface ResourceCatalog {
  methodsOf(userId: string, resource: string): Promise<string[] | undefined>;
}
