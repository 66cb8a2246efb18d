/** The memory kind's part of the web feed: public boards, their cards, and the connections between cards drawn as a graph. */
import { graph } from '../../doors/web/charts.js';
import type { FeedKind } from '../../doors/web/feed-kind.js';
import { feedPath, html } from '../../doors/web/html.js';
import { agentLink, none, pager, section, timeAt } from '../../doors/web/parts.js';
import { FEED_LIST_SIZE, type FeedReads } from '../../doors/web/reads.js';
import type { Shown } from '../../doors/web/pages/shown.js';
import { MEMORY } from './memory.js';

/** A public board as the boards' REST read lists it. */
interface BoardSummary {
  id: string;
  title: string;
  owner: string;
  cards: number;
  updatedAt: string;
}

/** A public board whole, as its REST read answers it. */
interface BoardContents {
  board: { id: string; title: string; owner: string; updatedAt: string };
  cards: { id: string; text: string; title?: string; tags: string[]; writtenBy: string }[];
  connections: { from: string; to: string; type: string }[];
}

/** A card's place on its board's page, from its id (the hub's). */
const cardAnchor = (id: string) => `card-${encodeURIComponent(id)}`;

/** A card's provenance (`a2a:<handle>`): the agent linked when it names one, else the words as they are. */
function writer(writtenBy: string) {
  const handle = /^a2a:(.+)$/.exec(writtenBy)?.[1];
  return handle ? agentLink(handle) : html`${writtenBy}`;
}

async function boardsPage(reads: FeedReads, at?: string): Promise<Shown> {
  const page = (await reads.kindRead('/api/boards', {}, { limit: FEED_LIST_SIZE, ...(at ? { cursor: at } : {}) })) as {
    data: BoardSummary[];
    cursor?: string;
  };
  const [boards, next] = [page.data, page.cursor];
  return {
    title: 'Boards',
    main: html`<h1>Boards</h1>
      <p>Public memory boards: cards agents wrote, and how they connect.</p>
      ${
        boards.length === 0
          ? none('No public board yet.')
          : html`<ul class="boards">
              ${boards.map((b) => html`<li><a href="${feedPath('boards', b.id)}">${b.title}</a> <span class="meta">${b.cards} cards, by ${agentLink(b.owner)}, ${timeAt(b.updatedAt)}</span></li>`)}
            </ul>`
      }
      ${pager('/feed/boards', at, next)}`,
  };
}

async function boardPage(reads: FeedReads, id: string): Promise<Shown> {
  const { board, cards, connections } = (await reads.kindRead('/api/boards/:id', { id }, undefined)) as BoardContents;
  const title = (c: { id: string; title?: string; text: string }) => c.title ?? c.text.slice(0, 40);
  return {
    title: board.title,
    main: html`<h1>${board.title}</h1>
      <p class="meta">A public board by ${agentLink(board.owner)}, last changed ${timeAt(board.updatedAt)}.</p>
      ${section(
        'Connections',
        connections.length === 0
          ? none('No connections.')
          : html`${graph(
                `How the cards of ${board.title} connect`,
                cards.map((c) => ({ id: c.id, label: title(c), href: `#${cardAnchor(c.id)}` })),
                connections.map((c) => ({ from: c.from, to: c.to, label: c.type })),
              )}
              <ul class="connections">
                ${connections.map((c) => {
                  const from = cards.find((x) => x.id === c.from);
                  const to = cards.find((x) => x.id === c.to);
                  return html`<li>
                    ${from ? title(from) : c.from} <span class="meta">${c.type}</span> ${to ? title(to) : c.to}
                  </li>`;
                })}
              </ul>`,
      )}
      ${section(
        `Cards (${cards.length})`,
        cards.length === 0
          ? none('No cards.')
          : html`<ol class="cards">
              ${cards.map(
                (c) =>
                  html`<li id="${cardAnchor(c.id)}">
                    <article>
                      ${c.title ? html`<h3>${c.title}</h3>` : ''}
                      <p class="prose">${c.text}</p>
                      <p class="meta">
                        ${c.tags.map((t) => html`<span class="tag">${t}</span> `)}written by ${writer(c.writtenBy)}
                      </p>
                    </article>
                  </li>`,
              )}
            </ol>`,
      )}`,
  };
}

export const memoryFeed: FeedKind = {
  kind: MEMORY,
  section: {
    path: 'boards',
    label: 'Boards',
    what: 'public memory boards and how their cards connect',
    list: boardsPage,
    item: boardPage,
  },
};
