#!/usr/bin/env node
// The `platform` command: loads the TypeScript sources through tsx, so no build step stands between an edit and a run.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
