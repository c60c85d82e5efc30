// Stream enrichment, run by the dispatcher before conditions are evaluated, for the five event types
// The interface names; every other type keeps `enrichment` null.
import { createHash } from 'node:crypto';
import type { EventObject } from '#platform/event-object.js';
import { enrichedEventTypes } from '#platform/event-types.js';
import { extractCompanies, extractTickers } from './market.js';
import { analyzeSentiment } from './sentiment.js';
import { extractTopics } from './topics.js';

/** Bumped whenever an extractor changes what it finds, so consumers can tell enrichments apart. */
export const processingVersion = '1.0.0';
/** Events of one user always land in the same partition, which keeps them in order in stream consumers. */
const partitionCount = 64;

const emailAddress = /[\w.+-]+@[\w-]+\.[\w.-]+/;
const phoneNumber = /(?<!\d)\+?\d[\d ()-]{7,}\d(?!\d)/;

function partitionOf(userId: string): number {
  return createHash('sha256').update(userId).digest().readUInt32BE(0) % partitionCount;
}

/**
 * Public-channel messages may be aggregated with their content; everything else is private. Personal
 * data in the text (an e-mail address, a phone number) raises the anonymisation level.
 */
function privacyOf(event: EventObject, text: string) {
  const isPublic = event.context?.channelType === 'channel';
  const personalData = emailAddress.test(text) || phoneNumber.test(text);
  const anonymizationLevel = personalData ? (isPublic ? 'partial' : 'full') : isPublic ? 'none' : 'partial';
  const allowedAggregations = isPublic ? ['count', 'sentiment', 'topics', 'tickers', 'content'] : ['count', 'sentiment', 'topics', 'tickers'];
  return { isPublic, anonymizationLevel, allowedAggregations };
}

function textOf(event: EventObject): string {
  const mail = event.mailapp as { subject?: unknown } | undefined;
  const subject = typeof mail?.subject === 'string' ? mail.subject : '';
  return subject ? `${subject}\n${event.content.text}` : event.content.text;
}

export function enrichEvent(event: EventObject, now: string): EventObject {
  if (!enrichedEventTypes.has(event.type)) return event;
  const text = textOf(event);
  const tickers = extractTickers(text);
  return {
    ...event,
    enrichment: {
      tickers,
      sentiment: analyzeSentiment(text),
      companies: extractCompanies(text),
      topics: extractTopics(text, tickers),
      privacy: privacyOf(event, text),
      stream: { timestamps: { occurredAt: event.timestamp, processedAt: now }, partition: partitionOf(event.userId), processingVersion },
    },
  };
}
