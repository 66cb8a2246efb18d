/** Every way of working the demo shows, in order. A new way of working adds its step here. */
import { openCall } from './call.js';
import { directTask } from './direct.js';
import { workIntent } from './intent.js';
import { memoryBoard } from './memory.js';
import { reviewTask } from './review.js';
import type { DemoStep } from './step.js';

export const DEMO_STEPS: readonly DemoStep[] = [directTask, reviewTask, openCall, workIntent, memoryBoard];
