import type { Demo } from '../cast.js';

/** One way of working, shown end to end through the hub's doors. Each new way adds a step to steps/index.ts. */
export interface DemoStep {
  title: string;
  run(demo: Demo): Promise<void>;
}
