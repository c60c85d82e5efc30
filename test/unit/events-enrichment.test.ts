import { describe, expect, it } from 'vitest';
import { enrichEvent, processingVersion } from '../../functions/events/enrichment/enrich.js';
import { extractCompanies, extractTickers } from '../../functions/events/enrichment/market.js';
import { analyzeSentiment } from '../../functions/events/enrichment/sentiment.js';
import { EventInput, normalizeEvent } from '../../functions/platform/event-object.js';
import { enrichedEventTypes, eventTypeProblem, namedEventTypes } from '../../functions/platform/event-types.js';
import { sampleEvent, sampleFiles, sampleInput } from '../support/event-samples.js';

const fill = { id: 'evt_1', userId: 'usr_1', now: '2026-03-02T10:00:00.000Z' };

describe('events: event types', () => {
  it.each([...namedEventTypes, 'payment.completed', 'payment.failed', 'customer.subscription.created', 'custom.deploy_finished', 'custom.Team:Alert-1'])(
    'accepts %s',
    (type) => {
      // Act / Assess
      expect(eventTypeProblem(type)).toBeUndefined();
    },
  );

  it.each([
    'message',
    'chatapp.reaction',
    'call.transferred',
    'platform.script_schedule',
    'platform.execution.failed',
    'platform.approval.requested',
    'custom.',
    'Payment.Completed',
    'payment.',
    `custom.${'x'.repeat(100)}`,
    '',
  ])('refuses %j', (type) => {
    // Act / Assess
    expect(eventTypeProblem(type)).toEqual(expect.any(String));
  });

  it('ships one sample per named type, plus webhook and custom examples, each valid input', () => {
    // Prepare
    const types = sampleFiles.map((file) => file.replace(/\.json$/, ''));
    // Act
    const parsed = types.map((type) => EventInput.safeParse(sampleInput(type)));
    // Assess
    expect(types).toEqual(expect.arrayContaining([...namedEventTypes, 'payment.completed', 'custom.deploy_finished']));
    expect(parsed.filter((result) => !result.success)).toEqual([]);
    expect(types.map((type) => sampleInput(type).type)).toEqual(types);
  });
});

describe('events: normalisation', () => {
  it('fills the defaults of the interface for a system event', () => {
    // Prepare
    const input = { type: 'payment.completed', source: 'webhook', data: { amount: 5 } };
    // Act
    const event = normalizeEvent(input, fill);
    // Assess
    expect(event).toEqual({
      id: 'evt_1',
      type: 'payment.completed',
      source: 'webhook',
      timestamp: fill.now,
      userId: 'usr_1',
      content: { text: '', contentType: 'message', timestamp: fill.now },
      actor: { id: '', name: 'System', actorType: 'system' },
      context: null,
      graphId: null,
      entity: {},
      enrichment: null,
      data: { amount: 5 },
      messageText: '',
      senderName: 'System',
    });
  });

  it('keeps what the event says and mirrors the legacy aliases', () => {
    // Act
    const event = normalizeEvent(sampleInput('chatapp.message'), fill);
    // Assess
    expect(event).toMatchObject({
      timestamp: '2026-03-02T14:05:09.000Z',
      content: { contentType: 'message', timestamp: '2026-03-02T14:05:09.000Z' },
      actor: { id: 'chat-user-1187', name: 'Dana Whitfield', actorType: 'user' },
      context: { channelType: 'group_chat' },
      chatapp: { chatId: 'chat-9001', isGroupChat: true },
      messageText: event.content.text,
      senderName: 'Dana Whitfield',
    });
  });

  it('reads the legacy aliases as input and derives the content type from the event type', () => {
    // Act
    const event = normalizeEvent({ type: 'mailapp.email_received', messageText: 'hello', senderName: 'Ann' }, fill);
    // Assess
    expect(event).toMatchObject({
      content: { text: 'hello', contentType: 'email' },
      actor: { name: 'Ann', actorType: 'user' },
      messageText: 'hello',
      senderName: 'Ann',
    });
  });

  it('keeps server-owned fields out of what a client can set', () => {
    // Act
    const result = EventInput.safeParse({ type: 'custom.x', id: 'evt_mine', userId: 'usr_other' });
    // Assess
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['id', 'userId']);
  });
});

describe('events: enrichment', () => {
  it.each([
    ['I love this, the new release works great!', 'positive'],
    ['Thanks so much, the support team was amazing :)', 'positive'],
    ['This is terrible, the app crashed again and I hate it.', 'negative'],
    ['The invoice is overdue and the customer is frustrated 😡', 'negative'],
    ['It is not good at all.', 'negative'],
    ['No problems at all, everything was fine.', 'positive'],
    ['The meeting is at 3pm in room 4.', 'neutral'],
  ])('scores %j as %s', (text, label) => {
    // Act
    const sentiment = analyzeSentiment(text)!;
    // Assess
    expect(sentiment.label).toBe(label);
    expect(Math.sign(sentiment.score)).toBe(label === 'positive' ? 1 : label === 'negative' ? -1 : 0);
    expect(sentiment.confidence).toBeGreaterThan(0);
    expect(sentiment.confidence).toBeLessThanOrEqual(1);
  });

  it('weighs the clause after "but" more', () => {
    // Act
    const sentiment = analyzeSentiment('The food was good but the service was terrible')!;
    // Assess
    expect(sentiment.label).toBe('negative');
  });

  it('has no sentiment for text without words', () => {
    // Act / Assess
    expect(analyzeSentiment('')).toBeNull();
  });

  it('finds tickers by cashtag, known symbol and name, with confidence by evidence', () => {
    // Act
    const tickers = extractTickers('Bought $aapl and $ZZZZ, holding BTC; Tesla looks strong. NOW is the time.');
    // Assess
    expect(tickers).toEqual([
      { symbol: 'AAPL', confidence: 0.95 },
      { symbol: 'BTC', confidence: 0.75 },
      { symbol: 'ZZZZ', confidence: 0.7 },
      { symbol: 'TSLA', confidence: 0.5 },
    ]);
  });

  it('does not take everyday words for tickers or companies', () => {
    // Act
    const tickers = extractTickers('I ate an apple, now it is time to go. The target is low.');
    const companies = extractCompanies('I ate an apple, now it is time to go.');
    // Assess
    expect(tickers).toEqual([]);
    expect(companies).toEqual([]);
  });

  it('names companies from the symbol list and by legal suffix', () => {
    // Act
    const companies = extractCompanies('Microsoft and Initech GmbH signed with Acme Inc. yesterday');
    // Assess
    expect(companies).toEqual(['Microsoft', 'Initech GmbH', 'Acme Inc']);
  });

  it('enriches the five types the interface names and leaves the others null', () => {
    // Act
    const enriched = [...enrichedEventTypes].map((type) => sampleEvent(type));
    const plain = namedEventTypes.filter((type) => !enrichedEventTypes.has(type)).map((type) => sampleEvent(type));
    // Assess
    for (const event of enriched) {
      expect(Object.keys(event.enrichment!).sort()).toEqual(['companies', 'privacy', 'sentiment', 'stream', 'tickers', 'topics']);
    }
    expect(plain.map((event) => event.enrichment)).toEqual(plain.map(() => null));
  });

  it('gives the sample chat message its tickers, sentiment, topics, privacy and stream data', () => {
    // Act
    const { enrichment } = sampleEvent('chatapp.message', 'usr_a');
    // Assess
    expect(enrichment).toMatchObject({
      tickers: [
        { symbol: 'AAPL', confidence: 0.95 },
        { symbol: 'BTC', confidence: 0.75 },
      ],
      sentiment: { label: 'positive' },
      companies: ['Apple'],
      topics: expect.arrayContaining(['finance', 'crypto']),
      privacy: { isPublic: false, anonymizationLevel: 'partial', allowedAggregations: expect.arrayContaining(['count', 'sentiment']) },
      stream: {
        timestamps: { occurredAt: '2026-03-02T14:05:09.000Z', processedAt: '2026-03-02T17:00:00.000Z' },
        partition: expect.any(Number),
        processingVersion,
      },
    });
    expect(sampleEvent('chatapp.message', 'usr_a').enrichment!.stream).toEqual(enrichment!.stream);
  });

  it('raises the anonymisation level when the text carries personal data', () => {
    // Act
    const { enrichment } = sampleEvent('mailapp.email_received');
    // Assess
    expect(enrichment).toMatchObject({
      sentiment: { label: 'negative' },
      companies: ['Globex Corporation'],
      privacy: { isPublic: false, anonymizationLevel: 'full' },
    });
  });

  it('is idempotent for an event already enriched', () => {
    // Prepare
    const event = sampleEvent('transcript.chunk');
    // Act
    const again = enrichEvent(normalizeEvent(event, { id: event.id, userId: event.userId, now: '2026-03-02T17:00:00.000Z' }), '2026-03-02T17:00:00.000Z');
    // Assess
    expect(again).toEqual(event);
  });
});
