// EventBridge target of CodeBuild's "Build State Change" events of the template build project (lib/templates.ts).
import type { EventBridgeEvent } from 'aws-lambda';
import { type CodeBuildStateChange, recordBuildState } from '../wiring.js';

export const handler = async (event: EventBridgeEvent<'CodeBuild Build State Change', CodeBuildStateChange>) => recordBuildState(event.detail);
