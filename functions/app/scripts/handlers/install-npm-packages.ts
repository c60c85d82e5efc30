// Not an HTTP route: the npm installer function (npmInstallerFunction in ../routes.ts), invoked by the API functions
// that create versions. It answers the tree it stored or a refusal, never throws for a package (installer-function.ts).
import type { InstallRequest } from '#functions/scripts/packages/dependency-port.js';
import { npmInstall } from '../wiring.js';

export const handler = (request: InstallRequest) => npmInstall()(request);
