// The durable engine's values that settings and inputs speak: a wait's length and a run's bounds. Apart from the
// facade (api.ts), so that a module parsing settings or inputs does not load the engine.
export { Duration, defaultDurableLimits, maxDurableInputBytes, maxWaitSeconds } from './limits.js';
