/**
 * The view's one rule of task visibility (view.ts asks it): from each kind's declaration
 * (Kind.visibility), the scope of the tasks a caller reads at a door. A list walks that scope in
 * the store; one task is shown at a door exactly when the same scope holds for its row (`holds`).
 * So a list at a door shows what GetTask finds there, and nothing decides either elsewhere.
 */
import type { Caller } from '../identity/caller.js';
import type { ColumnTest, TaskBranch, TaskColumn, TaskRecord, TaskScope, Visibility } from '../store/store.js';
import type { Door, Readers, TaskVisibility } from './kind.js';

/** A kind as the rule knows it: its name, its declaration and the name of its own base, if it brings one. */
export interface DeclaredKind {
  name: string;
  visibility: TaskVisibility;
  base?: string;
}

type Tests = Partial<Record<TaskColumn, ColumnTest>>;

/** How a kind's tasks are stored, as its readers say (kind.ts Readers): public or not, with a target or not. */
const stored = (readers: Readers): { visibility: Visibility; target: boolean } =>
  readers === 'everyone'
    ? { visibility: 'public', target: false }
    : { visibility: 'participants', target: readers === 'sender-and-target' };

const PUBLIC: Tests = { visibility: { in: ['public'] } };
const PRIVATE: Tests = { visibility: { in: ['participants'] } };

/**
 * The tasks a caller reads, by readers: each branch stands for the kinds with those readers. The
 * admin reads every task; an agent, public tasks and those it sent or was sent; an operator, what
 * any of its agents reads; without a token, public tasks. Branches never overlap.
 */
function readerBranches(caller: Caller): [Readers, Tests][] {
  if (caller.kind === 'admin') {
    return [
      ['everyone', PUBLIC],
      ['sender-and-target', { ...PRIVATE, target: { set: true } }],
      ['sender', { ...PRIVATE, target: { set: false } }],
    ];
  }
  const handles = caller.kind === 'agent' ? [caller.handle] : caller.kind === 'operator' ? [...caller.agents] : [];
  if (handles.length === 0) return [['everyone', PUBLIC]];
  return [
    ['everyone', PUBLIC],
    ['sender-and-target', { ...PRIVATE, sender: { in: handles }, target: { set: true } }],
    ['sender-and-target', { ...PRIVATE, target: { in: handles }, sender: { notIn: handles } }],
    ['sender', { ...PRIVATE, sender: { in: handles }, target: { set: false } }],
  ];
}

/**
 * Which of a door's tasks it lists, besides their kinds: the hub's, all; an agent's, those sent to
 * it or by it, and to the agent itself only those sent to it (its inbox); a space's, those in its
 * context; a kind's own base, all of its kinds'. Branches never overlap.
 */
function doorBranches(caller: Caller, door: Door): Tests[] {
  if (door.kind === 'agent') {
    const received: Tests = { target: { in: [door.handle] }, sender: { notIn: [door.handle] } };
    return caller.kind === 'agent' && caller.handle === door.handle
      ? [received]
      : [{ sender: { in: [door.handle] } }, received];
  }
  if (door.kind === 'space') return [{ contextId: { in: [door.name] } }];
  return [{}];
}

/** Both tests at once, or null when no value passes both. */
function both(a: ColumnTest, b: ColumnTest): ColumnTest | null {
  if ('set' in a && 'set' in b) return a.set === b.set ? a : null;
  if ('set' in b) return both(b, a);
  if ('set' in a) {
    if ('in' in b) return a.set ? b : null;
    if (a.set) throw new Error('a scope cannot say "set and none of" on one column'); // no declaration builds it
    return a; // no value is none of them
  }
  if ('in' in a && 'in' in b) return nonEmpty(a.in.filter((v) => b.in.includes(v)));
  if ('in' in a && 'notIn' in b) return nonEmpty(a.in.filter((v) => !b.notIn.includes(v)));
  if ('notIn' in a && 'in' in b) return both(b, a);
  const none = [...(a as { notIn: readonly string[] }).notIn, ...(b as { notIn: readonly string[] }).notIn];
  return { notIn: [...new Set(none)] };
}
const nonEmpty = (values: readonly string[]): ColumnTest | null => (values.length > 0 ? { in: values } : null);

/** Every test of both branches, or null when no task passes both. */
function merged(a: Tests, b: Tests): Tests | null {
  const out: Tests = { ...a };
  for (const [column, test] of Object.entries(b) as [TaskColumn, ColumnTest][]) {
    const prior = out[column];
    const joined = prior ? both(prior, test) : test;
    if (!joined) return null;
    out[column] = joined;
  }
  return out;
}

/** Whether a task's column passes a test (a column with no value is none of any list). */
function passes(value: string | undefined, test: ColumnTest): boolean {
  if ('set' in test) return (value !== undefined) === test.set;
  if ('in' in test) return value !== undefined && test.in.includes(value);
  return value === undefined || !test.notIn.includes(value);
}

const valueOf = (record: TaskRecord, column: TaskColumn): string | undefined => record[column];

/** Whether any branch of the scope holds for the task: exactly what the store's walk of it finds. */
export function holds(scope: TaskScope | undefined, record: TaskRecord): boolean {
  if (!scope) return false;
  // Plain loops: this runs on every GetTask, and allocates nothing.
  for (const branch of scope.anyOf) {
    let all = true;
    for (const column in branch) {
      if (!passes(valueOf(record, column as TaskColumn), branch[column as TaskColumn]!)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

/** What a scope is derived from: who the caller is, the door, and the kinds asked for. */
function scopeKey(caller: Caller, door: Door, only: readonly string[] | undefined): string {
  const who =
    caller.kind === 'agent'
      ? `agent ${caller.handle}`
      : caller.kind === 'operator'
        ? `operator ${caller.agents.join(' ')}`
        : caller.kind;
  const at = door.kind === 'agent' ? door.handle : door.kind === 'hub' ? '' : door.name;
  return `${who}\n${door.kind} ${at}\n${only ? only.join(' ') : '*'}`;
}

/** Scopes derived so far: at most this many, then forgotten all at once (they are derived again). */
const KEPT_SCOPES = 10_000;

function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

export class VisibilityRule {
  private readonly all: readonly DeclaredKind[];
  private readonly kept = new Map<string, TaskScope | undefined>();

  constructor(kinds: readonly DeclaredKind[]) {
    for (const k of kinds) {
      if (k.visibility.listedAt.includes('base') && k.base === undefined)
        throw new Error(`kind ${k.name} is listed at a base of its own but brings none`);
    }
    this.all = kinds;
  }

  /** The kinds whose tasks a door lists: every kind at the hub's. */
  listedAt(door: Door): string[] {
    if (door.kind === 'hub') return this.all.map((k) => k.name);
    return this.all
      .filter((k) => k.visibility.listedAt.includes(door.kind) && (door.kind !== 'base' || k.base === door.name))
      .map((k) => k.name);
  }

  /** The base relative to the hub's that lists a task to whoever reads it ('' for the hub's own). */
  baseOf(record: TaskRecord): string {
    const kind = this.all.find((k) => k.name === record.kind);
    const at = kind?.visibility.listedAt ?? [];
    if (at.includes('space')) return `spaces/${record.contextId}/`;
    if (at.includes('base') && kind?.base !== undefined) return `${kind.base}/`;
    if (at.includes('agent') && record.target !== undefined) return `agents/${record.target}/`;
    return '';
  }

  /**
   * The tasks the caller reads at this door, of `only` these kinds when given; undefined when none.
   * Each branch of what the caller reads meets each branch of what the door lists, narrowed to the
   * kinds of its readers listed there; then each test another already implies is left out, so the
   * store walks the indexes it has (and the rule's checks and lists stay one).
   */
  scope(caller: Caller, door: Door, only?: readonly string[]): TaskScope | undefined {
    // A pure function of the key and the declarations, so kept (frozen, shared) on any node: every
    // GetTask asks it, and deriving it allocates more than the rest of the check.
    const key = scopeKey(caller, door, only);
    if (this.kept.has(key)) return this.kept.get(key);
    const scope = this.derive(caller, door, only);
    if (this.kept.size >= KEPT_SCOPES) this.kept.clear();
    this.kept.set(key, frozen(scope));
    return scope;
  }

  private derive(caller: Caller, door: Door, only: readonly string[] | undefined): TaskScope | undefined {
    const listed = new Set(this.listedAt(door).filter((k) => !only || only.includes(k)));
    const anyOf: TaskBranch[] = [];
    for (const [readers, reads] of readerBranches(caller)) {
      const kinds = this.all.filter((k) => k.visibility.readers === readers && listed.has(k.name)).map((k) => k.name);
      if (kinds.length === 0) continue;
      for (const at of doorBranches(caller, door)) {
        const branch = merged({ ...reads, kind: { in: kinds } }, at);
        const lean = branch && this.lean(branch);
        if (lean) anyOf.push(lean);
      }
    }
    return anyOf.length > 0 ? { anyOf } : undefined;
  }

  /** The kinds whose tasks may pass these tests, by how their readers say they are stored. */
  private possible(tests: Tests): DeclaredKind[] {
    return this.all.filter((k) => {
      const { visibility, target } = stored(k.visibility.readers);
      if (tests.kind && !passes(k.name, tests.kind)) return false;
      if (tests.visibility && !passes(visibility, tests.visibility)) return false;
      const t = tests.target;
      return !t || ('set' in t ? t.set === target : 'in' in t ? target : true);
    });
  }

  /** The branch without a kind or visibility test that its other tests imply; null when no kind passes it. */
  private lean(branch: Tests): Tests | null {
    const { kind, ...rest } = branch;
    const possible = this.possible(rest);
    const kinds = possible.filter((k) => !kind || passes(k.name, kind));
    if (kinds.length === 0) return null;
    const out: Tests = kinds.length === possible.length ? rest : { ...rest, kind: { in: kinds.map((k) => k.name) } };
    const { visibility, ...others } = out;
    if (visibility && this.possible(others).every((k) => passes(stored(k.visibility.readers).visibility, visibility)))
      return others;
    return out;
  }
}
