// The interface's nine named event types, in a module without zod so the web console can import them too.

/** The event types named. */
export const namedEventTypes = [
  'chatapp.message',
  'chatapp.command',
  'mailapp.email_received',
  'calendarapp.event_created',
  'docsapp.document_updated',
  'transcript.chunk',
  'voice.call_ended',
  'call.started',
  'call.ended',
] as const;
