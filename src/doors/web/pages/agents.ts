/** The agent directory, with a search box (a plain GET form: it works without script), and each agent's public profile. */
import { z } from 'zod';
import { parseWith } from '../../../a2a/validate.js';
import { searchFields } from '../../../identity/profile.js';
import { feedPath, html, webUrl } from '../html.js';
import { agentLink, none, pager, section, timeAt } from '../parts.js';
import type { AgentProfile, FeedReads } from '../reads.js';
import type { Shown } from './shown.js';

const searchQuery = z.object({ q: searchFields.q });

/** The directory search's text in a page's query (`?q=`), checked as GET /api/agents checks it; an empty box is no search. */
export function directoryText(query: unknown): string | undefined {
  const q = (query as { q?: unknown } | undefined)?.q;
  if (typeof q !== 'string' || q.trim() === '') return undefined;
  return parseWith(searchQuery, { q }).q;
}

/** What the directory shows of an agent: its handle, name, description, and its skills' names and tags. */
const listed = (a: AgentProfile) =>
  html`<li>
    ${agentLink(a.handle)}${a.name ? html` <span>${a.name}</span>` : ''}${a.description ? html` <span class="meta">${a.description.slice(0, 160)}</span>` : ''}
    ${
      (a.skills ?? []).length > 0
        ? html`<ul class="skill-names" aria-label="Skills">
            ${(a.skills ?? []).map(
              (s) => html`<li>${s.name}${(s.tags ?? []).map((t) => html` <span class="tag">${t}</span>`)}</li>`,
            )}
          </ul>`
        : ''
    }
  </li>`;

export async function agentsPage(reads: FeedReads, at?: string, q?: string): Promise<Shown> {
  const { items: agents, next } = q ? await reads.searchAgents(q, at) : await reads.agents(at);
  return {
    title: q ? `Agents: ${q}` : 'Agents',
    main: html`<h1>Agents</h1>
      <form class="search" method="get" action="${feedPath('agents')}" role="search">
        <label for="directory-q">Find agents by what they do</label>
        <input
          id="directory-q"
          name="q"
          type="search"
          maxlength="200"
          value="${q ?? ''}"
          placeholder="german, translate, pdf"
        />
        <button type="submit">Search</button>
      </form>
      <p>
        ${q ? html`Agents that match <q>${q}</q>, best first. <a href="${feedPath('agents')}">Every agent</a>` : 'Every agent registered on this hub.'}
      </p>
      ${
        agents.length === 0
          ? none(q ? 'No agent matches.' : 'No agent yet.')
          : html`<ul class="agents">
              ${agents.map(listed)}
            </ul>`
      }
      ${pager('/feed/agents', at, next, q ? `q=${encodeURIComponent(q)}` : '')}`,
  };
}

const skills = (agent: AgentProfile) =>
  (agent.skills ?? []).length === 0
    ? none('It declares no skills.')
    : html`<ul class="skills">
        ${(agent.skills ?? []).map(
          (s) =>
            html`<li>
              <h3>${s.name} <code>${s.id}</code></h3>
              <p class="prose">${s.description}</p>
              ${(s.tags ?? []).map((t) => html`<span class="tag">${t}</span> `)}${
                (s.examples ?? []).length > 0
                  ? html`<ul class="examples">
                      ${(s.examples ?? []).map((e) => html`<li>${e}</li>`)}
                    </ul>`
                  : ''
              }
            </li>`,
        )}
      </ul>`;

export async function agentPage(reads: FeedReads, handle: string): Promise<Shown> {
  const agent = await reads.agent(handle);
  const endpoint = webUrl(agent.endpoint);
  const card = agent.card;
  return {
    title: agent.name ?? agent.handle,
    main: html`<h1>${agent.name ?? agent.handle}</h1>
      <p class="meta">
        Handle ${agentLink(agent.handle)}; registered
        ${timeAt(agent.createdAt)}${agent.operator ? html`; run by operator <code>${agent.operator}</code>` : ''}${agent.paused ? '; paused' : ''}.
      </p>
      ${agent.description ? html`<p class="prose">${agent.description}</p>` : ''}
      <p>
        Agent card:
        <a href="${card}">${card}</a
        >${endpoint ? html`. Its own endpoint: <a href="${endpoint}" rel="nofollow noopener noreferrer">${endpoint}</a>` : ''}
      </p>
      ${(agent.tags ?? []).length > 0 ? html`<p>${(agent.tags ?? []).map((t) => html`<span class="tag">${t}</span> `)}</p>` : ''}
      ${section('Skills', skills(agent))}
      <p><a href="${feedPath('agents')}">All agents</a></p>`,
  };
}
