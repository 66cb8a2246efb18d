/**
 * Memory boards from the command line: each command is one memory skill call at the memory base
 * (`/memory/`), plus `export` (a board's file to disk) and `import` (a board from a file). The
 * kind's own commands, kept in its folder; they import only from the client, this folder's
 * plain modules and the hub's message limits (a module of constants), so the client CLI never
 * loads the hub.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../../../client/errors.js';
import { wholeNumber } from '../../../client/paging.js';
import type { FieldWords } from '../../../client/cli-words.js';
import { action, client, type Context } from '../../../client/run.js';
import type { KindCli } from '../../kind-client.js';
import { BOARD_MEDIA_TYPE, boardFileSchema, type BoardFile } from '../board-file.js';
import { importBoard, importSaid, planImport } from './board-import.js';
import { boardFileOf, callSkill, callText } from './calls.js';
import { memoryBoard } from './demo.js';
import { MEMORY_LIMITS as L } from '../limits.js';

/** A board command's skill args, named by the arguments and flags that set them. */
const argWords = (words: Record<string, string>): FieldWords =>
  Object.fromEntries(Object.entries(words).map(([arg, flag]) => [`message.parts[0].data.args.${arg}`, flag]));

function readBoardFile(file: string): BoardFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `Cannot read ${file}: ${(e as Error).message}`,
      'Name a board file written by muster board export',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON`, 'Name a board file written by muster board export', 'BAD_JSON');
  }
  const parsed = boardFileSchema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(
      `${file} is not a board file: ${parsed.error.issues[0]?.path.join('.') || 'the document'} ${parsed.error.issues[0]?.message ?? ''}`.trim(),
      `A board file has "format": "muster.board" and "version": 1`,
    );
  return parsed.data as unknown as BoardFile;
}

function boardCommands(program: Command): void {
  const board = program
    .command('board')
    .description('memory boards: make, append to, recall, read, list, export and import boards');

  client(board, 'create <title> <cards...>', 'make a board, one card per argument ("#word" in a card tags it)')
    .option('--visibility <who>', 'private (the default), shared or public')
    .option('--share <handle...>', 'the agents a shared board is shared with')
    .action(
      action(
        async (ctx: Context<{ visibility?: string; share?: string[] }>, title: string, cards: string[]) => {
          const { visibility, share } = ctx.options;
          const shown = visibility ?? (share ? 'shared' : undefined);
          ctx.show(
            await callSkill(ctx, 'board.create', {
              title,
              cards,
              ...(shown ? { visibility: shown } : {}),
              ...(share ? { sharedWith: share } : {}),
            }),
            callText,
          );
        },
        argWords({ title: '<title>', cards: '<cards...>', visibility: '--visibility', sharedWith: '--share' }),
      ),
    );

  client(board, 'remember <board> <text...>', 'append one card to a board (named by id or title)').action(
    action(
      async (ctx: Context, ref: string, text: string[]) =>
        ctx.show(await callSkill(ctx, 'board.remember', { board: ref, cards: [text.join(' ')] }), callText),
      argWords({ board: '<board>', cards: '<text...>' }),
    ),
  );

  client(board, 'recall <query...>', 'the cards that best match words and #tags, across the boards you may read')
    .option('--board <board>', 'only this board (id or title)')
    .option('--limit <n>', `at most this many cards (1 to ${L.recallLimit.max})`, wholeNumber(1, L.recallLimit.max))
    .action(
      action(
        async (ctx: Context<{ board?: string; limit?: number }>, query: string[]) => {
          const { board: ref, limit } = ctx.options;
          ctx.show(
            await callSkill(ctx, 'board.recall', {
              query: query.join(' '),
              ...(ref ? { board: ref } : {}),
              ...(limit ? { limit } : {}),
            }),
            callText,
          );
        },
        argWords({ query: '<query...>', board: '--board', limit: '--limit' }),
      ),
    );

  client(board, 'read <board>', "a board's cards and connections (by id or title)").action(
    action(
      async (ctx: Context, ref: string) =>
        ctx.show(
          await callSkill(
            ctx,
            'board.read',
            { board: ref },
            { acceptedOutputModes: ['text/plain', 'application/json'] },
          ),
          callText,
        ),
      argWords({ board: '<board>' }),
    ),
  );

  client(board, 'list', 'the boards you may read').action(
    action(async (ctx: Context) => ctx.show(await callSkill(ctx, 'board.list', {}), callText)),
  );

  client(board, 'export <board>', `write a board's file (${BOARD_MEDIA_TYPE})`)
    .option('-o, --out <file>', 'the file to write (default: print it)')
    .action(
      action(async (ctx: Context<{ out?: string }>, ref: string) => {
        const file = await boardFileOf(
          ctx,
          await callSkill(ctx, 'board.read', { board: ref }, { acceptedOutputModes: [BOARD_MEDIA_TYPE] }),
        );
        const text = `${JSON.stringify(file, null, 2)}\n`;
        if (!ctx.options.out) return void process.stdout.write(text);
        writeFileSync(ctx.options.out, text);
        ctx.show(
          { board: file.board.id, file: ctx.options.out, cards: file.cards.length },
          (w) => `wrote ${w.file}: "${file.board.title}", ${w.cards} cards`,
        );
      }),
    );

  client(board, 'import <file>', 'make a board of your own from a board file')
    .option('--title <title>', "the new board's title (default: the file's)")
    .option(
      '--resume <board>',
      'finish an import that stopped part-way, into the board it made (cards already on it are not written again)',
    )
    .action(
      action(async (ctx: Context<{ title?: string; resume?: string }>, fileName: string) => {
        const { title, resume } = ctx.options;
        if (title !== undefined && resume !== undefined)
          throw new UsageError('--title names a new board; --resume finishes one that exists', 'Give one of them');
        const file = readBoardFile(fileName);
        const plan = planImport(file, fileName);
        const visibility =
          file.board.visibility === 'shared'
            ? { visibility: 'shared', sharedWith: file.board.sharedWith }
            : { visibility: file.board.visibility };
        const task = await importBoard((skill, args) => callSkill(ctx, skill, args), plan, {
          title: title ?? file.board.title,
          visibility,
          fileName,
          ...(resume !== undefined ? { resume } : {}),
        });
        ctx.show(task, (t) => importSaid(t, plan));
      }),
    );
}

export const memoryCli: KindCli = { commands: boardCommands, demo: memoryBoard };
