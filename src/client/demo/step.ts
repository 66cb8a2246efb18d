import type { Demo } from './cast.js';

/** One way of working, shown end to end through the hub's doors. A kind brings its own (its KindClient's `demo`). */
export interface DemoStep {
  title: string;
  run(demo: Demo): Promise<void>;
}
