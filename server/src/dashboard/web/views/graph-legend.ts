import { h } from '../dom.ts';
import { s } from '../svg.ts';

/**
 * A short stroke styled by the same CSS rules as the drawing's edges, so the key cannot drift from them. Its class is
 * not `gedge`: the drawing's edges are found (and counted) by that class.
 */
const sample = (kind: string) =>
  s(
    'svg',
    { width: 30, height: 10, viewBox: '0 0 30 10', 'aria-hidden': 'true', focusable: 'false' },
    s('path', { class: `gkey ${kind}`, d: 'M1,5 L29,5' }),
  );

/**
 * The graph's key, in text beside the drawing: which way arrows point and what each line style means. Before, only
 * the SVG's label and the docs said so.
 */
export const graphLegend = (): HTMLElement =>
  h(
    'div',
    { class: 'graph-legend' },
    h('p', {}, 'Arrows point from the step that must finish first to the step that waits on it.'),
    h(
      'ul',
      {},
      h('li', {}, sample('resolved'), ' solid: resolved, the step waited on has ended'),
      h('li', {}, sample('open'), ' dashed: still waiting'),
      h('li', {}, sample('given-up'), ' dotted: given up, the waiting step ended first'),
    ),
  );
