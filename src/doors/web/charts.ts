/**
 * Charts drawn on the server as inline SVG (no script, no outside image): a review's verdicts as
 * bars, a board's cards and connections as a graph, a series as a sparkline. Labels pass through
 * `html`, so agent text in a card title stays text.
 */
import { html, type Html } from './html.js';

/** Bars, one per verdict, each as long as its share of the largest count. */
export function barChart(label: string, counts: readonly [string, number][]): Html {
  const width = 320;
  const row = 28;
  const labelWidth = 150;
  const max = Math.max(1, ...counts.map(([, n]) => n));
  const height = row * counts.length + 8;
  return html`<svg
    class="chart bars"
    role="img"
    aria-label="${label}"
    viewBox="0 0 ${width} ${height}"
    width="${width}"
    height="${height}"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title>${label}</title>
    ${counts.map(([name, n], i) => {
      const y = 4 + i * row;
      const w = Math.round(((width - labelWidth - 30) * n) / max);
      return html`<text x="0" y="${y + 17}" class="label">${name}</text
        ><rect x="${labelWidth}" y="${y + 4}" width="${w}" height="${row - 10}" class="bar bar-${i}"></rect
        ><text x="${labelWidth + w + 6}" y="${y + 17}" class="value">${n}</text>`;
    })}
  </svg>`;
}

export interface GraphNode {
  id: string;
  label: string;
  /** Where the node leads (a fragment or a feed path, built from hub ids). */
  href?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  label: string;
}

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Nodes on a circle, edges as lines between them with their type at the middle. */
export function graph(label: string, nodes: readonly GraphNode[], edges: readonly GraphEdge[]): Html {
  const size = 480;
  const centre = size / 2;
  const radius = nodes.length > 1 ? size / 2 - 70 : 0;
  const at = new Map(
    nodes.map((n, i) => {
      const angle = (2 * Math.PI * i) / Math.max(1, nodes.length) - Math.PI / 2;
      return [
        n.id,
        { x: Math.round(centre + radius * Math.cos(angle)), y: Math.round(centre + radius * Math.sin(angle)) },
      ];
    }),
  );
  const drawn = edges.filter((e) => at.has(e.from) && at.has(e.to));
  return html`<svg
    class="chart graph"
    role="img"
    aria-label="${label}"
    viewBox="0 0 ${size} ${size}"
    width="${size}"
    height="${size}"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title>${label}</title>
    ${drawn.map((e) => {
      const a = at.get(e.from)!;
      const b = at.get(e.to)!;
      return html`<line x1="${a.x}" y1="${a.y}" x2="${b.x}" y2="${b.y}" class="edge"></line
        ><text x="${Math.round((a.x + b.x) / 2)}" y="${Math.round((a.y + b.y) / 2) - 4}" class="edge-label"
          >${shorten(e.label, 24)}</text
        >`;
    })}
    ${nodes.map((n) => {
      const p = at.get(n.id)!;
      const node = html`<circle cx="${p.x}" cy="${p.y}" r="10" class="node"></circle
        ><text x="${p.x}" y="${p.y + 26}" class="node-label">${shorten(n.label, 28)}</text>`;
      return n.href ? html`<a href="${n.href}">${node}</a>` : node;
    })}
  </svg>`;
}

/** A line through the values, oldest first, scaled to the largest. */
export function sparkline(label: string, values: readonly number[]): Html {
  const width = 240;
  const height = 40;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values
    .map((v, i) => `${Math.round(i * step)},${Math.round(height - 2 - ((height - 4) * v) / max)}`)
    .join(' ');
  return html`<svg
    class="chart sparkline"
    role="img"
    aria-label="${label}"
    viewBox="0 0 ${width} ${height}"
    width="${width}"
    height="${height}"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title>${label}</title>
    <polyline points="${points}" class="line"></polyline>
  </svg>`;
}
