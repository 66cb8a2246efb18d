/** The hub's wire words in the CLI's: field paths become the flags that set them, REST routes the commands. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagOfField, inCliWords } from '../src/client/cli-words.js';
import { freshConfigHome, runMuster } from './helpers/cli.js';
import { register, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

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
    expect(inCliWords('Only the target responds; read the task with GET /api/tasks/abc-1')).toBe(
      'Only the target responds; read the task with muster get abc-1',
    );
    expect(inCliWords("Omit contextId, or send the task's own")).toBe("Omit --context, or send the task's own");
    expect(inCliWords('Answer it, or list GET /api/inbox')).toBe('Answer it, or list muster inbox');
    expect(inCliWords('POST /api/tasks/{id}/close')).toBe('POST /api/tasks/{id}/close'); // a template, not a task: left as it is
    expect(inCliWords('Use an agent token (POST /api/agents)')).toBe('Use an agent token (muster register)');
    expect(inCliWords('an agent gets one from POST /api/agents; or rotate')).toBe(
      'an agent gets one from muster register; or rotate',
    );
    expect(inCliWords('Share the board with registered agents (GET /api/agents)')).toBe(
      'Share the board with registered agents (muster agents list)',
    );
    expect(inCliWords('List the boards you may read with GET /api/boards')).toBe(
      'List the boards you may read with muster board list',
    );
    expect(inCliWords('read without one at GET /api/boards/b-12.')).toBe('read without one at muster board read b-12.');
    expect(inCliWords('Change it with PATCH /api/agents/{handle}')).toBe('Change it with muster agents update');
    expect(inCliWords('Check it with GET /api/me.')).toBe('Check it with muster whoami.');
  });
});

describe("the hub's refusals through the real CLI", { timeout: 60_000 }, () => {
  let hub: TestHub;
  let ann: Registered;
  beforeAll(async () => {
    hub = await startTestHub();
    [ann] = await Promise.all([register(hub, 'words-ann'), register(hub, 'words-ben')]);
  });
  afterAll(() => hub?.destroy());

  it('name the flags the user typed and the commands to run, never the wire fields or REST routes', async () => {
    const sent = await runMuster(hub.url, ['send', 'words-ben', 'hello', '--json'], ann.token);
    const id = JSON.parse(sent.stdout).id as string;
    const [mismatch, notTarget] = await Promise.all([
      runMuster(hub.url, ['send', 'words-ben', 'again', '--task', id, '--context', 'another-context'], ann.token),
      runMuster(hub.url, ['respond', id, 'working'], ann.token),
    ]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toMatch(
      /^muster: Invalid '--context': does not match the task's context, \S+\n {2}hint: Omit --context, or send the task's own\n$/,
    );
    expect(notTarget.code).toBe(1);
    expect(notTarget.stderr).toContain(`muster get ${id}`);
    expect(notTarget.stderr).not.toContain('/api/');
  });
});

describe(
  'a CLI user is told what to type: nearest handle and profile, the hub behind a pasted base',
  { timeout: 60_000 },
  () => {
    let hub: TestHub;
    let ann: Registered;
    beforeAll(async () => {
      hub = await startTestHub();
      [ann] = await Promise.all([register(hub, 'near-ann'), register(hub, 'near-dave')]);
    });
    afterAll(() => hub?.destroy());

    it('methods, routes and skill calls become commands; a command names its own fields by its arguments', async () => {
      expect(inCliWords('Read the Evaluation artifact with GetTask')).toBe(
        'Read the Evaluation artifact with muster get',
      );
      expect(inCliWords('an operator can rotate it: POST /api/agents/{handle}/token')).toBe(
        'an operator can rotate it: muster token rotate --agent <handle>',
      );
      expect(inCliWords('Name the agent: GET /api/inbox?agent=<handle> (an operator)')).toBe(
        'Name the agent: muster inbox --agent <handle> (an operator)',
      );
      expect(inCliWords('List the boards with {"skill": "board.list"}; name one')).toBe(
        'List the boards with muster board list; name one',
      );
      const words = { 'message.parts[0].data.body': '<text...>' };
      expect(inCliWords("Invalid 'params.message.parts[0].data.body': too long", words)).toBe(
        "Invalid '<text...>': too long",
      );
      expect(flagOfField('params.message.parts[0].data.body', words)).toBe('<text...>');
    });

    it('a mistyped handle gets the nearest in the directory; a pasted agent base reaches the hub behind it', async () => {
      const [typo, pasted] = await Promise.all([
        runMuster(hub.url, ['send', 'near-dav', 'hello'], ann.token),
        runMuster(undefined, ['whoami', '--url', `${hub.url}agents/near-dave/`], ann.token),
      ]);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toMatch(/^muster: No agent 'near-dav' on this hub\n {2}hint: Did you mean near-dave\? /);
      expect(pasted.code).toBe(0);
      expect(pasted.stdout).toContain('near-ann');
      // An intent command's refusal reaches the same words: its own wrapper kept the suggestion out.
      expect((await runMuster(hub.url, ['space', 'create', 'near-space'], ann.token)).code).toBe(0);
      const member = await runMuster(
        hub.url,
        ['space', 'member', 'add', 'near-space', 'near-dav', '--role', 'worker'],
        ann.token,
      );
      expect(member.code).toBe(1);
      expect(member.stderr).toMatch(/^muster: No agent 'near-dav' on this hub\n {2}hint: Did you mean near-dave\? /);
      expect(pasted.stderr).toBe(
        `muster: ${hub.url}agents/near-dave/ is an A2A base on a hub, not the hub's: using the hub at ${hub.url}\n`,
      );
    });

    it('a profile named but never saved reads as such (exit 2), with the nearest saved one; no hub named says so', async () => {
      const home = freshConfigHome();
      const env = { XDG_CONFIG_HOME: home };
      expect((await runMuster(hub.url, ['login', '--profile', 'work'], ann.token, env)).code).toBe(0);
      const [typo, unknown, nothing] = await Promise.all([
        runMuster(undefined, ['whoami', '--profile', 'wrok'], undefined, env),
        runMuster(undefined, ['whoami', '--profile', 'elsewhere', '--json'], undefined, env),
        runMuster(undefined, ['inbox'], undefined, { XDG_CONFIG_HOME: freshConfigHome() }),
      ]);
      expect(typo).toEqual({
        code: 2,
        stdout: '',
        stderr: "muster: there is no profile 'wrok' (saved: work)\n  hint: Did you mean --profile work?\n",
      });
      expect(JSON.parse(unknown.stdout).error).toMatchObject({
        code: 'USAGE',
        hint: expect.stringContaining('muster login --profile elsewhere'),
      });
      expect(nothing.stderr).toContain('No hub was named and no profile is saved: pass --url');
    });
  },
);
