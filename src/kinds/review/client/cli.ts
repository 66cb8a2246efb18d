/**
 * Review tasks from the command line, kept in the kind's folder. `review digest` and `review
 * preview` are local: they run the hub's own checks and digest on a request file and send nothing.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { reviewSettings } from '../settings.js';
import { UsageError } from '../../../client/errors.js';
import { renderTaskSummary } from '../../../client/format.js';
import { action, client, type Context } from '../../../client/run.js';
import { sendData } from '../../../client/send-data.js';
import type { KindCli } from '../../kind-client.js';
import { previewLines, reviewSection } from './format.js';
import { reviewTask } from './demo.js';
import { checkRequest, openData, requestDigest, type ReviewRequest } from '../request.js';

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(
      `cannot read ${file} as JSON: ${(e as Error).message}`,
      undefined,
      e instanceof SyntaxError ? 'BAD_JSON' : 'USAGE',
    );
  }
}

/** A request file: the request on its own, or `{request, approval}` as posted. */
function readRequest(file: string): unknown {
  const value = readJson(file);
  const wrapped = typeof value === 'object' && value !== null && 'request' in value;
  return wrapped ? (value as { request: unknown }).request : value;
}

const renderPreview = (p: { request: ReviewRequest; digest: string }): string =>
  [
    ...previewLines(p.request, p.digest),
    '',
    `If your user approves exactly this, post it with: muster review post <file> --approved ${p.digest}`,
  ].join('\n');

function reviewCommands(program: Command): void {
  const review = program.command('review').description('public review tasks: digest and preview locally, post');

  client(review, 'digest <file>', 'print the SHA-256 (RFC 8785 canonical JSON) of a review request; nothing is sent', {
    hub: false,
  }).action(
    action(async (ctx: Context, file: string) => {
      const digest = requestDigest(readRequest(file));
      ctx.show({ digest }, (d) => d.digest);
    }),
  );

  client(
    review,
    'preview <file>',
    'check a review request as the hub would and show what it publishes; nothing is sent',
    { hub: false },
  ).action(
    action(async (ctx: Context, file: string) => {
      const raw = readRequest(file);
      const request = checkRequest(raw, reviewSettings(process.env), Date.now());
      ctx.show({ request, digest: requestDigest(raw) }, renderPreview);
    }),
  );

  client(review, 'post <file>', 'post a review request your user approved')
    .requiredOption('--approved <digest>', 'the digest your user approved (from muster review preview)')
    .action(
      action(async (ctx: Context<{ approved: string }>, file: string) => {
        ctx.show(await sendData(ctx, openData(readRequest(file), ctx.options.approved)), renderTaskSummary);
      }),
    );

  client(program, 'contribute <taskId> <file>', 'send your sealed contribution (a JSON file) to a review task').action(
    action(async (ctx: Context, id: string, file: string) => {
      ctx.show(await sendData(ctx, readJson(file), id), (task) => {
        const receipt = (task.metadata?.['muster'] as { receipt?: { contribution?: { id: string } } } | undefined)
          ?.receipt?.contribution;
        return `${renderTaskSummary(task)}\nsealed until the deadline; your contribution id: ${receipt?.id ?? '(none)'}`;
      });
    }),
  );
}

export const reviewCli: KindCli = { commands: reviewCommands, section: reviewSection, demo: reviewTask };
