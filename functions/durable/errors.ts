// The engine's one error: a stable code the code catches (`error.code`), a message, and details. It carries no HTTP
// status: the routes that reach the engine map its codes to theirs (functions/app/durable-engine.ts).

export class DurableError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DurableError';
  }
}
