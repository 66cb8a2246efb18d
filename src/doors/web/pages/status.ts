/** The hub's own status: version, store, nodes and tasks per hour. */
import type { Hub } from '../../../hub/hub.js';
import { sparkline } from '../charts.js';
import { html } from '../html.js';
import { none, section, timeAt } from '../parts.js';
import { statusFacts } from '../status.js';
import type { Shown } from './shown.js';

export async function statusPage(hub: Hub): Promise<Shown> {
  const facts = await statusFacts(hub);
  const perHour = facts.tasksPerHour;
  return {
    title: 'Status',
    main: html`<h1>Status</h1>
<dl class="facts"><dt>Version</dt><dd>${facts.version}</dd><dt>Store</dt><dd>${facts.store}</dd></dl>
${section('Nodes', facts.nodes === undefined ? none('Not known on this build.') : html`<ul>${facts.nodes.map((n) => html`<li><code>${n.id}</code> ${n.lastSeenAt ? html`seen ${timeAt(n.lastSeenAt)}` : ''}</li>`)}</ul>`)}
${section('Tasks per hour', perHour === undefined ? none('Not known on this build.') : html`${sparkline('Tasks per hour, oldest first', perHour)} <span class="meta">${perHour.at(-1) ?? 0} in the last hour</span>`)}`,
  };
}
