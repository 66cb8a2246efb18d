/**
 * A kind's part of the web feed, declared in its wing (src/kinds/<kind>/feed.ts): a section of its
 * own (reviews, calls, spaces, boards), its tasks' pages and titles, and what the home page shows
 * of it. The composition root hands the kinds' parts to the web door; the door names no kind.
 */
import type { Task, TaskState } from '../../a2a/types.js';
import { feedPath, type Html } from './html.js';
import type { Shown } from './pages/shown.js';
import type { FeedReads } from './reads.js';
import { wordOf, type Reader, type StateWords } from './states.js';

/** A section of the feed: `/feed/{path}` lists, `/feed/{path}/:key` shows one of its items. */
export interface FeedSection {
  path: string;
  /** Its name in the navigation and on the home page. */
  label: string;
  /** What the home page says it holds. */
  what: string;
  list(reads: FeedReads, at: string | undefined): Promise<Shown>;
  /** One item by its key (a space by name, a board by id); without it, one of the kind's tasks by id. */
  item?(reads: FeedReads, key: string): Promise<Shown>;
}

/** What the home page shows of a kind: what is open now, and what recently ended (shown after every kind's open part). */
export interface FeedHome {
  open?: Html;
  ended?: Html;
}

export interface FeedKind {
  /** The kind's name (its module's). */
  kind: string;
  section?: FeedSection;
  /** One of its tasks on a page of its own; without it, the task page shows it. */
  page?(task: Task, kinds: FeedKinds): Shown;
  /** A task's title from what the kind keeps in its metadata; undefined: the task's own words. */
  titleOf?(task: Task): string | undefined;
  home?(reads: FeedReads): Promise<FeedHome>;
  /** The words people use for its tasks' states (states.ts has the plain ones for the rest). */
  states?: StateWords;
  /** A finer word than its state's, from what the kind keeps (a review's outcome); undefined: the state's word. */
  stateOf?(task: Task): string | undefined;
  /** Its tasks are the ones a signed-in agent's inbox and sent box hold, answered with `respond`. */
  mailbox?: { respondStates: readonly TaskState[] };
}

/** The kinds' parts, as the feed's pages ask them: by a task's kind, or all in order. */
export class FeedKinds {
  private readonly byKind: ReadonlyMap<string, FeedKind>;

  constructor(readonly parts: readonly FeedKind[]) {
    this.byKind = new Map(parts.map((p) => [p.kind, p]));
  }

  /** Every kind's section, in the order the kinds were given. */
  get sections(): FeedSection[] {
    return this.parts.flatMap((p) => (p.section ? [p.section] : []));
  }

  /** Where the feed shows a task: its kind's section when the kind has one and shows its tasks there, else the task page. */
  href(id: string, kind: string): string {
    const section = this.byKind.get(kind)?.section;
    return section && !section.item ? feedPath(section.path, id) : feedPath('tasks', id);
  }

  title(task: Task, kind: string): string | undefined {
    return this.byKind.get(kind)?.titleOf?.(task);
  }

  /** A task's state in its kind's words, as `reader` reads it. */
  stateWord(task: Task, kind: string, reader?: Reader): string {
    const part = this.byKind.get(kind);
    return part?.stateOf?.(task) ?? wordOf(part?.states, task.status.state, reader);
  }

  /** The kind whose tasks fill the signed-in mailboxes, if one declares it. */
  get mailbox(): FeedKind | undefined {
    return this.parts.find((p) => p.mailbox);
  }

  page(task: Task, kind: string): Shown | undefined {
    return this.byKind.get(kind)?.page?.(task, this);
  }
}
