// Every test file starts with the local adapters installed in the platform root, as bin/local.ts installs them;
// they are used only once a test switches PLATFORM_MODE to local.
import { localAdapters } from '../../functions/adapters/local/adapters.js';
import { installLocalAdapters } from '../../functions/app/platform.js';

installLocalAdapters(localAdapters);
