import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';
import { s } from '../svg.ts';
import type { DependencyGraph, GraphNode } from './graph-model.ts';
import { AGENT_CHARS, clip, NODE_H, NODE_W, nodeName, titleOf } from './graph-labels.ts';

/** Room for a node's first line: its width less 8px padding each side. */
const LINE_W = NODE_W - 16;

export const GRAPH_LABEL =
  'Dependency graph: each arrow points from the step that must finish first to the step that waits on it';

interface Section {
  startPoint: { x: number; y: number };
  endPoint: { x: number; y: number };
  bendPoints?: { x: number; y: number }[];
}

interface Placed {
  node: GraphNode;
  x: number;
  y: number;
}

/**
 * Nodes in reading order: top to bottom, then left to right. They are emitted in this order, so Tab walks the drawing
 * as it is seen; emitted group by group, half the Tab moves jumped back up the page to the next agent's group.
 */
const readingOrder = (placed: Placed[]) => [...placed].sort((a, b) => a.y - b.y || a.x - b.x);

const marker = () =>
  s(
    'defs',
    {},
    s(
      'marker',
      { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
      s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
    ),
  );

/**
 * A step's link, in a group that carries its tooltip: a <title> inside the link would count as the link's visible
 * text, which then no longer matches its name (axe's label-in-name check). The group is no landmark or group of its
 * own (role none), so a screen reader meets the link alone.
 */
const nodeLink = (state: DashboardState, { node, x, y }: Placed) => {
  // The visible text is cut to fit; the name and the tooltip carry it whole (paint keeps them current).
  const name = nodeName(node, titleOf(node));
  return s(
    'g',
    { role: 'none' },
    s('title', {}, name),
    s(
      'a',
      {
        class: 'gnode',
        'data-id': node.id,
        'data-node': `${node.agentId}:${node.stepId}`,
        'data-plan-id': node.planId,
        href: node.planId
          ? href(state.identity.workspace, { view: 'step', planId: node.planId, stepId: node.stepId })
          : undefined,
        'aria-label': name,
      },
      s('rect', { x, y, width: NODE_W, height: NODE_H, rx: 6 }),
      s('text', { x: x + 8, y: y + 18, class: 'gtitle' }, titleOf(node)),
      // Not drawn, but it keeps the two lines two words apart in the link's text ("Build pending", not "Buildpending").
      document.createTextNode(' '),
      s('text', { x: x + 8, y: y + 36, class: 'gstatus' }, ''),
    ),
  );
};

/** The laid-out graph as SVG at its natural size: agents' groups, then step links in reading order, then arrows. */
export const drawGraph = (state: DashboardState, graph: DependencyGraph, laid: ElkNode): SVGSVGElement => {
  const width = Math.ceil(laid.width ?? 0);
  const height = Math.ceil(laid.height ?? 0);
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'group', 'aria-label': GRAPH_LABEL });
  svg.append(marker());
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const placed: Placed[] = [];
  for (const group of laid.children ?? []) {
    const agent = group.id.slice('agent\u0002'.length);
    const offline = state.model.agent(agent)?.online === false ? ' (offline)' : '';
    svg.append(
      s('rect', { x: group.x, y: group.y, width: group.width, height: group.height, rx: 8, class: 'ggroup' }),
      s(
        'text',
        { x: (group.x ?? 0) + 10, y: (group.y ?? 0) + 19, class: 'gagent' },
        s('title', {}, `${agent}${offline}`),
        clip(agent, AGENT_CHARS),
        offline,
      ),
    );
    for (const child of group.children ?? []) {
      const node = byId.get(child.id);
      if (node) placed.push({ node, x: child.x ?? 0, y: child.y ?? 0 });
    }
  }
  for (const p of readingOrder(placed)) svg.append(nodeLink(state, p));
  for (const edge of laid.edges ?? [])
    for (const sec of (edge as { sections?: Section[] }).sections ?? []) {
      const points = [sec.startPoint, ...(sec.bendPoints ?? []), sec.endPoint];
      svg.append(
        s('path', {
          class: 'gedge',
          'data-id': edge.id,
          d: points.map((p, i) => `${i ? 'L' : 'M'}${p.x},${p.y}`).join(' '),
          'marker-end': 'url(#arrow)',
        }),
      );
    }
  return svg as SVGSVGElement;
};

/**
 * Cuts each node's first line further where the fonts at hand draw it wider than its node, shortest cut that fits.
 * Needs the drawing in the page to measure; detached (nothing to measure), the counted cut stands.
 */
export const fitTitles = (svg: SVGSVGElement, graph: DependencyGraph): void => {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  svg.querySelectorAll<SVGAElement>('a.gnode').forEach((a) => {
    const node = byId.get(a.dataset.id ?? '');
    const text = a.querySelector<SVGTextElement>('.gtitle');
    if (!node || !text || text.getComputedTextLength() <= LINE_W) return;
    let room = (text.textContent ?? '').length - 1;
    while (room > node.stepId.length + 2) {
      text.textContent = titleOf(node, room);
      if (text.getComputedTextLength() <= LINE_W) break;
      room--;
    }
  });
};
