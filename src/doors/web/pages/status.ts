/** The hub's own status: version, store, nodes and tasks per hour. */
import type { Hub } from '../../../hub/hub.js';
import { sparkline } from '../charts.js';
import { html } from '../html.js';
import { none, section, timeAt } from '../parts.js';
import type { Shown } from './shown.js';

export async function statusPage(hub: Hub): Promise<Shown> {
  const facts = await hub.status.report();
  const perHour = facts.tasksPerHour.counts;
  return {
    title: 'Status',
    main: html`<h1>Status</h1>
      <dl class="facts">
        <dt>Version</dt>
        <dd>${facts.version}</dd>
        <dt>Store</dt>
        <dd>${facts.store}</dd>
      </dl>
      ${section(
        'Nodes',
        facts.nodes.length === 0
          ? none('No node has reported in the last 30 seconds.')
          : html`<ul class="nodes">
              ${facts.nodes.map((n) => html`<li><code>${n.id}</code>${n.self ? ' (this node)' : ''}, version ${n.version}, started ${timeAt(n.startedAt)}, seen ${timeAt(n.lastSeenAt)}</li>`)}
            </ul>`,
      )}
      ${section('Tasks per hour', html`${sparkline('Public tasks created per hour over the last 24 hours, oldest first', perHour)} <span class="meta">${perHour.at(-1) ?? 0} in the last hour, ${perHour.reduce((a, b) => a + b, 0)} in 24 hours</span>`)}`,
  };
}
