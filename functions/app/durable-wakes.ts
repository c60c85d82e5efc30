// The durable engine's wake-ups with the resumers of every kind of durable run, declared here, above the areas that
// run them: a script run continues through the scripts area's runner, an llm flow's run through the flows' agent loop.
import { flowResumer, flowRunner } from '#functions/app/flows/wiring.js';
import { scriptResumer } from '#functions/app/scripts/wiring.js';
import { scriptRunner as scriptRuns } from '#functions/scripts/durable/script-runs.js';
import { durableEngine } from './durable-engine.js';
import { type Platform, perPlatform } from './platform.js';

export const durableWakes = perPlatform((platform: Platform) =>
  durableEngine(platform).wakes({ [scriptRuns]: scriptResumer(platform), [flowRunner]: flowResumer(platform) }),
);
