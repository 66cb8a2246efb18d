/** The hub's wire words in the CLI's: field paths become the flags that set them, REST routes the commands. */
import { describe, expect, it } from 'vitest';
import { flagOfField, inCliWords } from '../src/cli/client/cli-words.js';

describe('errors in the CLI words', () => {
  it('a violation field becomes the flag or argument that sets it, also for what lies inside it', () => {
    expect(flagOfField('params.message.contextId')).toBe('--context');
    expect(flagOfField('params.message.taskId')).toBe('--task');
    expect(flagOfField('expectedState')).toBe('--expected-state');
    expect(flagOfField('state')).toBe('<state>');
    expect(flagOfField('limit')).toBe('--limit');
    expect(flagOfField('cursor')).toBe('--cursor');
    expect(flagOfField('artifacts[0].parts')).toBe('--artifact-text');
    expect(flagOfField('artifacts.0.parts')).toBe('--artifact-text');
    expect(flagOfField('message.parts')).toBe('message.parts'); // no flag sets it: left as the hub named it
    expect(flagOfField('stateful')).toBe('stateful');
  });

  it('running text: wire paths and REST routes are rewritten, plain words are not', () => {
    expect(inCliWords('params.message.contextId does not match the task')).toBe('--context does not match the task');
    expect(inCliWords('expectedState must be a state')).toBe('--expected-state must be a state');
    expect(inCliWords('The task state is working; the limit is 50')).toBe('The task state is working; the limit is 50');
    expect(inCliWords('Respond with POST /api/tasks/abc-1/respond')).toBe('Respond with muster respond abc-1');
    expect(inCliWords('POST /api/agents/ann/endpoint/challenge first')).toBe('muster endpoint challenge first');
  });
});
