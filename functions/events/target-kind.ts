// What the trigger pipeline (trigger-pipeline.ts) delivers events to: a kind of target (a subscription runs a
// script, an event flow runs a flow, ...). The pipeline normalises and enriches each user event once, asks every
// registered kind for its candidates, matches them through one predicate cache and delivers each match through
// one ledger claim; a kind only says what its targets are and how one delivery runs. Adding a kind is one more
// entry in the list the composition hands to createTriggerPipeline.
import type { Predicate } from './conditions/engine.js';
import type { DispatchReport } from './deliveries.js';
import type { EventObject } from '#platform/event-object.js';
import type { DeliveryOutcome } from './ports.js';

/** What a delivery's run answers; a refusal is thrown as an AppError and classified by the kind's codes. */
export interface TargetRun {
  executionId: string;
  status: string;
}

/** One event (or one internal firing) for one target. */
export interface TargetDelivery {
  /** The ledger key: the same on every retry of the same delivery, distinct across kinds. */
  deliveryId: string;
  run(): Promise<TargetRun>;
  /** Claimed by the run's own first write (a time flow's firing minute), not by the ledger. */
  claimedByRun?: boolean;
  /** What the kind keeps of the outcome once it is in the ledger (a subscription's line in the event history). */
  recorded?(outcome: DeliveryOutcome): Promise<void>;
  /**
   * The target's lane (a script): at most `limit` of its deliveries are claimed and running in this process at once,
   * the others wait their turn before costing anything, first come first served.
   */
  lane?: { key: string; limit: number };
}

/** A user event as the pipeline hands it to a kind: as published (normalised) and enriched for matching. */
export interface MatchedEvent {
  normalized: EventObject;
  enriched: EventObject;
}

/** Delivers a kind's deliveries through the pipeline's ledger and failure policy; throws when any failed transiently. */
export type DeliverEach = (deliveries: TargetDelivery[]) => Promise<DispatchReport>;

/** One of the platform's own `platform.` deliveries (a schedule firing, a webhook request, a retry) that a kind takes. */
export interface InternalDelivery {
  /** The bus source it must come from; the same type from elsewhere is ignored. */
  source: string;
  handle(detail: Record<string, unknown>, deliver: DeliverEach): Promise<DispatchReport>;
}

/** One target a kind has for an event type, before its conditions are tested. */
export interface Candidate {
  /** The target's identity and revision: its compiled predicate is cached until the revision changes. */
  id: string;
  revision: string;
  /** Compiles the target's conditions; a throw (stored conditions that no longer compile) makes it match nothing. */
  compile(): Predicate;
  /** The delivery of a matching event to this target. */
  delivery(event: MatchedEvent): TargetDelivery;
}

export interface TargetKind {
  /** Names the kind in logs and keys its compiled predicates. */
  readonly name: string;
  /** Refusal codes that mean there is nothing to run (gone, not deployed, paused): skipped; other refusals are refused. */
  readonly skippedCodes: ReadonlySet<string>;
  /** The targets `userId` has for `eventType`: one indexed read. */
  candidates(userId: string, eventType: string): Promise<Candidate[]>;
  /** The internal delivery types the kind takes, by type; no two kinds may take the same type. */
  readonly internal?: Readonly<Record<string, InternalDelivery>>;
}
