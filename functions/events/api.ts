// The events area's facade: the condition engine, the trigger pipeline's target-kind interface and its delivery
// ledger (flows' event kind plugs into the pipeline through them), and the subscriptions a script has.
import { createSubscriptionStore } from './subscription-store.js';

export { type DispatchReport, emptyReport } from './deliveries.js';
export type { Candidate, InternalDelivery, TargetDelivery, TargetKind } from './target-kind.js';
export { createDeliveryStore as deliveryLedger } from './delivery-store.js';
export { enrichEvent } from './enrichment/enrich.js';
export type { DeliveryLedger, DeliveryOutcome } from './ports.js';
export { type Dialect, type OperatorSpec, type Predicate, type Scalar, compileConditionTree, withBothSpellings } from './conditions/engine.js';
export { documentConditionTree } from './conditions/schema.js';
export { asNumber, isIn, not } from './conditions/script-dialect.js';

/** How many of the script's event subscriptions are enabled: a script with any cannot be deleted. */
export async function enabledSubscriptionCount(scriptId: string): Promise<number> {
  return (await createSubscriptionStore().list(scriptId)).filter((subscription) => subscription.enabled !== false).length;
}
