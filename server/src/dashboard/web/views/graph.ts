import { h } from '../dom.ts';
import type { DashboardState } from '../state.ts';
import { drawGraph, fitTitles } from './graph-draw.ts';
import { NODE_H, NODE_W, nodeName, statusOf, statusText } from './graph-labels.ts';
import { createLayout } from './graph-layout.ts';
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { graphLegend } from './graph-legend.ts';
import { dependencyGraph, type DependencyGraph } from './graph-model.ts';

const layout = createLayout();
/** A failed layout is tried again after 1 s, then twice as long each time up to 30 s, until one succeeds. */
const RETRY_FIRST_MS = 1000;
const RETRY_MOST_MS = 30_000;

/**
 * The layout request: agents as groups, steps inside. Each edge runs from the step waited on to the step that waits
 * (the model's edge reversed), so prerequisites sit left of their dependents and the arrowhead lands on the waiter.
 */
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
  edges: graph.edges.map((e) => ({ id: e.id, sources: [e.to], targets: [e.from] })),
});

/**
 * The dependency graph, laid out by ELK (layered). A new layout runs only when steps or edges come or go; a status
 * change recolours the existing drawing in place. Each step is a link to its page.
 *
 * The drawing keeps its natural size (text at its CSS size) in a region that scrolls sideways: shrunk to fit a phone
 * it was unreadable. The region takes focus so the keyboard can scroll it. A skip link before it leads past its
 * nodes, which are one Tab stop each.
 */
export const createGraphView = (state: DashboardState) => {
  const scroller = h('div', {
    class: 'graph',
    'data-shape': '',
    role: 'region',
    'aria-label': 'Dependency graph, scrolls sideways',
  });
  const end = h('span', { id: 'graph-end', class: 'sr-only', tabindex: -1, hidden: true }, 'End of the graph');
  // Moves the focus itself, as the page's skip link does: following the href would change the routed hash. It lands
  // on the "As a list" disclosure that follows the graph where there is one (a visible focus, and the graph's text
  // equivalent), else on the end marker; either way the next Tab goes on past the graph.
  const skip = h(
    'a',
    {
      class: 'graph-skip',
      href: '#graph-end',
      hidden: true,
      onclick: (event: Event) => {
        event.preventDefault();
        (el.nextElementSibling?.querySelector<HTMLElement>(':scope > summary') ?? end).focus();
      },
    },
    'Skip the graph',
  );
  const legend = graphLegend();
  legend.hidden = true;
  const el = h('div', { class: 'graph-block' }, skip, legend, scroller, end);
  let shape = '';
  let layoutRun = 0;
  let failures = 0;
  let retry = 0;

  /** Shows a message instead of a drawing: nothing to skip, explain or scroll. */
  const message = (p: HTMLElement) => {
    skip.hidden = legend.hidden = end.hidden = true;
    scroller.removeAttribute('tabindex');
    scroller.replaceChildren(p);
  };

  const paint = (graph: DependencyGraph) => {
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    scroller.querySelectorAll<SVGAElement>('a.gnode').forEach((a) => {
      const node = byId.get(a.dataset.id ?? '');
      if (!node) return;
      a.dataset.status = statusOf(node);
      a.setAttribute(
        'class',
        `gnode status-${statusOf(node)}${node.step?.stalled ? ' stalled' : ''}${node.planId && node.step && state.flashing(node.planId, node.stepId) ? ' flash' : ''}`,
      );
      const name = nodeName(node, a.querySelector('.gtitle')?.textContent ?? node.stepId);
      if (a.getAttribute('aria-label') !== name) {
        a.setAttribute('aria-label', name);
        const title = a.parentElement?.querySelector(':scope > title');
        if (title) title.textContent = name;
      }
      const badge = a.querySelector('.gstatus');
      if (badge) badge.textContent = statusText(node);
    });
    const edgeState = new Map(graph.edges.map((e) => [e.id, e.open ? 'open' : e.givenUp ? 'given-up' : 'resolved']));
    scroller
      .querySelectorAll<SVGPathElement>('path.gedge')
      .forEach((p) => p.setAttribute('class', `gedge ${edgeState.get(p.dataset.id ?? '') ?? 'resolved'}`));
  };

  const draw = (graph: DependencyGraph, laid: ElkNode) => {
    skip.hidden = legend.hidden = end.hidden = false;
    scroller.tabIndex = 0;
    const svg = drawGraph(state, graph, laid);
    scroller.replaceChildren(svg);
    fitTitles(svg, graph);
    scroller.dataset.shape = String(graph.nodes.length);
    paint(graph);
  };

  const failed = (err: unknown) => {
    // Laid out anew at the retry, whatever changed meanwhile; until then the message stays (events do not hasten it).
    shape = '';
    const delay = Math.min(RETRY_MOST_MS, RETRY_FIRST_MS * 2 ** failures++);
    const reason = err instanceof Error ? err.message : String(err);
    message(
      h(
        'p',
        { class: 'error', role: 'status' },
        `Could not lay out the graph (${reason}); retrying in ${Math.round(delay / 1000)} s.`,
      ),
    );
    retry = window.setTimeout(() => {
      retry = 0;
      update();
    }, delay);
  };

  const update = () => {
    const snapshot = state.model.snapshot;
    if (!snapshot) return;
    const graph = dependencyGraph(snapshot);
    if (graph.nodes.length === 0) {
      window.clearTimeout(retry);
      retry = 0;
      shape = '';
      message(h('p', { class: 'muted' }, 'No step waits on another agent.'));
      return;
    }
    if (retry) return;
    if (graph.shape === shape) {
      paint(graph);
      return;
    }
    shape = graph.shape;
    const run = ++layoutRun;
    // Whatever was said before (no dependencies, a failure) is no longer so; a drawing stays until the new one.
    if (!scroller.querySelector('svg')) message(h('p', { class: 'muted' }, 'Laying out the graph…'));
    layout(elkGraph(graph))
      .then((laid) => {
        if (run !== layoutRun) return;
        failures = 0;
        draw(dependencyGraph(state.model.snapshot ?? snapshot), laid);
      })
      .catch((err: unknown) => {
        if (run === layoutRun) failed(err);
      });
  };

  return { el, update };
};
