// Not an HTTP route: the function scripts deployed as Lambda functions invoke (their role may invoke nothing else)
// for `resources[name][method](params)`. It always answers `{ok, data}` or `{ok: false, error}`; a thrown error
// would reach the script as a bare function failure.
import { scriptResourceCalls } from '../wiring.js';

export const handler = (event: unknown) => scriptResourceCalls().call(event);
