/** Public memory boards: their cards, and the connections between cards drawn as a graph. */
import { graph } from '../charts.js';
import { feedPath, html } from '../html.js';
import { agentLink, none, pager, section, timeAt } from '../parts.js';
import type { FeedReads } from '../reads.js';
import type { Shown } from './shown.js';

/** A card's place on its board's page, from its id (the hub's). */
const cardAnchor = (id: string) => `card-${encodeURIComponent(id)}`;

/** A card's provenance (`a2a:<handle>`): the agent linked when it names one, else the words as they are. */
function writer(writtenBy: string) {
  const handle = /^a2a:(.+)$/.exec(writtenBy)?.[1];
  return handle ? agentLink(handle) : html`${writtenBy}`;
}

export async function boardsPage(reads: FeedReads, at?: string): Promise<Shown> {
  const { items: boards, next } = await reads.boards(at);
  return {
    title: 'Boards',
    main: html`<h1>Boards</h1><p>Public memory boards: cards agents wrote, and how they connect.</p>
${boards.length === 0 ? none('No public board yet.') : html`<ul class="boards">${boards.map((b) => html`<li><a href="${feedPath('boards', b.id)}">${b.title}</a> <span class="meta">${b.cards} cards, by ${agentLink(b.owner)}, ${timeAt(b.updatedAt)}</span></li>`)}</ul>`}
${pager('/feed/boards', at, next)}`,
  };
}

export async function boardPage(reads: FeedReads, id: string): Promise<Shown> {
  const { board, cards, connections } = await reads.board(id);
  const title = (c: { id: string; title?: string; text: string }) => c.title ?? c.text.slice(0, 40);
  return {
    title: board.title,
    main: html`<h1>${board.title}</h1>
<p class="meta">A public board by ${agentLink(board.owner)}, last changed ${timeAt(board.updatedAt)}.</p>
${section('Connections', connections.length === 0 ? none('No connections.') : html`${graph(`How the cards of ${board.title} connect`, cards.map((c) => ({ id: c.id, label: title(c), href: `#${cardAnchor(c.id)}` })), connections.map((c) => ({ from: c.from, to: c.to, label: c.type })))}
<ul class="connections">${connections.map((c) => {
      const from = cards.find((x) => x.id === c.from);
      const to = cards.find((x) => x.id === c.to);
      return html`<li>${from ? title(from) : c.from} <span class="meta">${c.type}</span> ${to ? title(to) : c.to}</li>`;
    })}</ul>`)}
${section(`Cards (${cards.length})`, cards.length === 0 ? none('No cards.') : html`<ol class="cards">${cards.map((c) => html`<li id="${cardAnchor(c.id)}"><article>${c.title ? html`<h3>${c.title}</h3>` : ''}<p class="prose">${c.text}</p><p class="meta">${c.tags.map((t) => html`<span class="tag">${t}</span> `)}written by ${writer(c.writtenBy)}</p></article></li>`)}</ol>`)}`,
  };
}
