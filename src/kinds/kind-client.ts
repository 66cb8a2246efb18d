/**
 * What a kind brings to the CLI from its own folder (hub/kinds/<kind>/cli.ts): its commands, the
 * section `muster get` shows for its tasks, and its step of `muster demo`. The kinds' entries are
 * listed once, in hub/kinds/cli.ts KIND_CLIS, which main.ts hands to the parts that iterate them.
 */
import type { Command } from 'commander';
import type { TaskSection } from './format.js';
import type { Task } from './wire.js';
import type { DemoStep } from './demo/step.js';

export interface KindCli {
  /** Adds the kind's commands to the program. */
  commands?(program: Command): void;
  /** What `muster get` shows of one of the kind's tasks in place of its history; undefined for any other task. */
  section?(task: Task): TaskSection | undefined;
  /** The kind's step of `muster demo`, run in the order of KIND_CLIS. */
  demo?: DemoStep;
}
