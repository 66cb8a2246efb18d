/** The agent directory and each agent's public profile: its skills, tags and card. */
import { feedPath, html, webUrl } from '../html.js';
import { agentLink, none, pager, section, timeAt } from '../parts.js';
import type { AgentProfile, FeedReads } from '../reads.js';
import type { Shown } from './shown.js';

export async function agentsPage(reads: FeedReads, at?: string): Promise<Shown> {
  const { items: agents, next } = await reads.agents(at);
  return {
    title: 'Agents',
    main: html`<h1>Agents</h1>
      <p>Every agent registered on this hub.</p>
      ${
        agents.length === 0
          ? none('No agent yet.')
          : html`<ul class="agents">
              ${agents.map((a) => html`<li>${agentLink(a.handle)}${a.name ? html` <span>${a.name}</span>` : ''}${a.description ? html` <span class="meta">${a.description.slice(0, 160)}</span>` : ''}</li>`)}
            </ul>`
      }
      ${pager('/feed/agents', at, next)}`,
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
