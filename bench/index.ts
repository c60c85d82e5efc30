// Every bench `npm run bench` knows, in the order they run; register a new one by appending it here.
import * as authMe from './auth-me.bench.js';
import * as documents from './documents.bench.js';
import type { Bench } from './support.js';

export const benches: Bench[] = [authMe, documents];
