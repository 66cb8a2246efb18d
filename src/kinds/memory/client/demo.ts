/** A memory board: alice makes one shared with bob; bob adds to it and recalls from it; carol, not shared with, finds nothing; alice reads it in plain words. */
import type { Task } from '../../../a2a/types.js';
import type { Agent, Demo } from '../../../client/demo/cast.js';
import { quote } from '../../../client/demo/transcript.js';
import { sendMessage, stateName } from '../../../client/demo/messages.js';
import type { DemoStep } from '../../../client/demo/step.js';

const MEMORY_BASE = 'memory/';

const callSkill = (agent: Agent, skill: string, args: object) =>
  sendMessage(agent.target, MEMORY_BASE, [{ data: { skill, args } }]);

const resultParts = (task: Task) => task.artifacts?.find((a) => a.artifactId === 'result')?.parts ?? [];

/** What a completed call says for people (its `result` artifact's text), from line `from` on, one line. */
const said = (task: Task, from = 0): string =>
  (resultParts(task).find((p) => p.text !== undefined)?.text ?? stateName(task)).split('\n')[from] ?? '';

/** The cards a recall found or a read shows (the `result` artifact's data part). */
const cardsIn = (task: Task): number =>
  ((resultParts(task).find((p) => p.data !== undefined)?.data as { cards?: unknown[] } | undefined)?.cards ?? [])
    .length;

export const memoryBoard: DemoStep = {
  title: 'A memory board: made, shared, added to, recalled',
  run: async (demo: Demo) => {
    const { alice, bob, carol } = demo.agents;
    const t = demo.transcript;
    const made = await callSkill(alice, 'board.create', {
      title: 'Launch plan',
      visibility: 'shared',
      sharedWith: [bob.handle],
      cards: ['Ship the A2A face #launch', 'Seed the directory #launch', 'Which region goes first?'],
      connections: [{ from: 0, to: 1, type: 'leads_to' }],
    });
    const board = (made.metadata?.['muster'] as { board?: string } | undefined)?.board ?? '';
    const file = made.artifacts?.some((a) => a.artifactId === 'board') ? ', with the board as a file' : '';
    demo.made.push({ what: 'the board.create call', id: made.id });
    t.act(
      'alice',
      `board.create ${quote('Launch plan')} at /memory/, shared with bob: 3 cards, 1 connection`,
      `${stateName(made)}, board ${board}${file}`,
    );

    const added = await callSkill(bob, 'board.remember', { board, cards: ['Docs go live on Friday #launch'] });
    t.act('bob', `board.remember on it: ${quote('Docs go live on Friday #launch')}`, said(added));
    const found = await callSkill(bob, 'board.recall', { query: '#launch' });
    t.act('bob', 'board.recall #launch', `${cardsIn(found)} cards, best first`);
    const none = await callSkill(carol, 'board.recall', { query: '#launch' });
    t.act('carol', 'board.recall #launch (the board is not shared with her)', `${cardsIn(none)} cards`);

    const read = await sendMessage(alice.target, MEMORY_BASE, [{ text: "What's on the Launch plan board?" }]);
    t.act('alice', quote("What's on the Launch plan board?"), `${stateName(read)}, ${said(read, 1)}`);
  },
};
