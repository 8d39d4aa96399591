import ElkApi from 'elkjs/lib/elk-api.js';
import type { ELK, ELKConstructorArguments, ElkNode } from 'elkjs/lib/elk-api.js';
import { h } from '../dom.ts';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';
import { s } from '../svg.ts';
import { dependencyGraph, type DependencyGraph, type GraphNode } from './graph-model.ts';
import { isUnblocked } from './status-badges.ts';

const NODE_W = 168;
const NODE_H = 46;
// elk-api.js is CommonJS: its module.exports is the constructor (esbuild hands it over as the default import). The
// layout engine itself (1.5 MB) runs in a worker the node serves, so the page stays small and layout never blocks it.
const Elk = ((ElkApi as unknown as { default?: unknown }).default ?? ElkApi) as new (
  args?: ELKConstructorArguments,
) => ELK;
let elk: ELK | undefined;
const layout = (graph: ElkNode) => (elk ??= new Elk({ workerUrl: '/dashboard/elk-worker.js' })).layout(graph);

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const statusOf = (n: GraphNode) => n.step?.status ?? 'not_started';
const titleOf = (n: GraphNode) => clip(`${n.stepId} ${n.step?.description ?? ''}`, 24);
const statusText = (n: GraphNode) =>
  statusOf(n).replace('_', ' ') +
  (n.step && isUnblocked(n.step) ? ' · unblocked' : '') +
  (n.step?.stalled ? ' · stalled' : '');
/** The layout request: agents as groups, steps inside, edges from the waiting step to the step it waits on. */
const elkGraph = (graph: DependencyGraph): ElkNode => ({
  id: 'root',
  layoutOptions: {
    'elk.algorithm': 'layered',
    'elk.direction': 'RIGHT',
    'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
    'elk.json.edgeCoords': 'ROOT',
    'elk.json.shapeCoords': 'ROOT',
    'elk.spacing.nodeNode': '18',
    'elk.layered.spacing.nodeNodeBetweenLayers': '36',
  },
  children: graph.agents.map((agent) => ({
    id: `agent\u0002${agent}`,
    layoutOptions: { 'elk.padding': '[top=30,left=10,bottom=10,right=10]' },
    children: graph.nodes.filter((n) => n.agentId === agent).map((n) => ({ id: n.id, width: NODE_W, height: NODE_H })),
  })),
  edges: graph.edges.map((e) => ({ id: e.id, sources: [e.from], targets: [e.to] })),
});

/**
 * The dependency graph, laid out by ELK (layered). A new layout runs only when steps or edges come or go; a status
 * change recolours the existing drawing in place. Each step is a link to its page.
 */
export const createGraphView = (state: DashboardState) => {
  const el = h('div', { class: 'graph', 'data-shape': '' });
  let shape = '';
  let layoutRun = 0;

  const paint = (graph: DependencyGraph) => {
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    el.querySelectorAll<SVGAElement>('a.gnode').forEach((a) => {
      const node = byId.get(a.dataset.id ?? '');
      if (!node) return;
      a.dataset.status = statusOf(node);
      a.setAttribute(
        'class',
        `gnode status-${statusOf(node)}${node.step?.stalled ? ' stalled' : ''}${node.planId && node.step && state.flashing(node.planId, node.stepId) ? ' flash' : ''}`,
      );
      const badge = a.querySelector('.gstatus');
      if (badge) badge.textContent = statusText(node);
    });
    const edgeState = new Map(graph.edges.map((e) => [e.id, e.open ? 'open' : e.givenUp ? 'given-up' : 'resolved']));
    el.querySelectorAll<SVGPathElement>('path.gedge').forEach((p) =>
      p.setAttribute('class', `gedge ${edgeState.get(p.dataset.id ?? '') ?? 'resolved'}`),
    );
  };

  const draw = (graph: DependencyGraph, laid: ElkNode) => {
    const ws = state.identity.workspace;
    const svg = s('svg', {
      viewBox: `0 0 ${Math.ceil(laid.width ?? 0)} ${Math.ceil(laid.height ?? 0)}`,
      width: Math.ceil(laid.width ?? 0),
      role: 'group',
      'aria-label': 'Dependency graph: which step waits on which',
    });
    svg.append(
      s(
        'defs',
        {},
        s(
          'marker',
          {
            id: 'arrow',
            viewBox: '0 0 10 10',
            refX: 9,
            refY: 5,
            markerWidth: 7,
            markerHeight: 7,
            orient: 'auto-start-reverse',
          },
          s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
        ),
      ),
    );
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    for (const group of laid.children ?? []) {
      const agent = group.id.slice('agent\u0002'.length);
      const presence = state.model.agent(agent);
      svg.append(
        s('rect', { x: group.x, y: group.y, width: group.width, height: group.height, rx: 8, class: 'ggroup' }),
        s(
          'text',
          { x: (group.x ?? 0) + 10, y: (group.y ?? 0) + 19, class: 'gagent' },
          clip(agent, 26),
          presence?.online === false ? ' (offline)' : '',
        ),
      );
      for (const child of group.children ?? []) {
        const node = byId.get(child.id);
        if (!node) continue;
        const x = child.x ?? 0;
        const y = child.y ?? 0;
        const link = s(
          'a',
          {
            class: 'gnode',
            'data-id': node.id,
            'data-node': `${node.agentId}:${node.stepId}`,
            'data-plan-id': node.planId,
            href: node.planId ? href(ws, { view: 'step', planId: node.planId, stepId: node.stepId }) : undefined,
          },
          s('rect', { x, y, width: NODE_W, height: NODE_H, rx: 6 }),
          s('text', { x: x + 8, y: y + 18, class: 'gtitle' }, titleOf(node)),
          s('text', { x: x + 8, y: y + 36, class: 'gstatus' }, ''),
        );
        svg.append(link);
      }
    }
    for (const edge of laid.edges ?? []) {
      for (const sec of (
        edge as {
          sections?: {
            startPoint: { x: number; y: number };
            endPoint: { x: number; y: number };
            bendPoints?: { x: number; y: number }[];
          }[];
        }
      ).sections ?? []) {
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
    }
    el.replaceChildren(svg);
    el.dataset.shape = String(graph.nodes.length);
    paint(graph);
  };

  return {
    el,
    update() {
      const snapshot = state.model.snapshot;
      if (!snapshot) return;
      const graph = dependencyGraph(snapshot);
      if (graph.nodes.length === 0) {
        shape = '';
        el.replaceChildren(h('p', { class: 'muted' }, 'No step waits on another agent.'));
        return;
      }
      if (graph.shape === shape) {
        paint(graph);
        return;
      }
      shape = graph.shape;
      const run = ++layoutRun;
      layout(elkGraph(graph))
        .then((laid) => {
          if (run === layoutRun) draw(dependencyGraph(state.model.snapshot ?? snapshot), laid);
        })
        .catch((err: unknown) => {
          el.replaceChildren(h('p', { class: 'error' }, `The graph could not be laid out: ${String(err)}`));
        });
    },
  };
};
