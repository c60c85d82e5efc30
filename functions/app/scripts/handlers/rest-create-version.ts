import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restCreateVersion, async ({ input, caller }) => {
  const { version } = await scriptService().createVersion(caller.userId, input.scriptId, {
    code: input.code,
    message: input.changelog,
    semver: input.version,
    dependencies: input.dependencies,
    lockfile: input.lockfile,
  });
  return rest.version(version);
});
