// Every bench `npm run bench` knows, in the order they run; register a new one by appending it here.
import * as authMe from './auth-me.bench.js';
import * as buildNeighbours from './build-neighbours.bench.js';
import * as deploy from './deploy.bench.js';
import * as webConsole from './console.bench.js';
import * as documents from './documents.bench.js';
import * as durable from './durable.bench.js';
import * as events from './events.bench.js';
import * as fanout from './fanout.bench.js';
import * as flowControl from './flow-control.bench.js';
import * as flows from './flows.bench.js';
import * as mcp from './mcp.bench.js';
import * as resourceCall from './resource-call.bench.js';
import * as runHistory from './run-history.bench.js';
import * as runEvents from './run-events.bench.js';
import * as payments from './payments.bench.js';
import * as mcpPayments from './mcp-payments.bench.js';
import * as scriptDependencies from './script-dependencies.bench.js';
import * as scriptNeighbours from './script-neighbours.bench.js';
import * as scripts from './scripts.bench.js';
import * as templates from './templates.bench.js';
import type { Bench } from './support.js';

export const benches: Bench[] = [
  authMe,
  resourceCall,
  mcp,
  payments,
  mcpPayments,
  documents,
  events,
  scripts,
  durable,
  fanout,
  flowControl,
  scriptNeighbours,
  buildNeighbours,
  scriptDependencies,
  flows,
  templates,
  runHistory,
  runEvents,
  deploy,
  webConsole,
];
