import type { GraphNode } from './graph-model.ts';
import { isUnblocked } from './status-badges.ts';

/** A node's size in the drawing: wide enough for a step id and the start of its description on one line. */
export const NODE_W = 216;
export const NODE_H = 46;
/**
 * Characters of the first line at most: about what NODE_W holds at the title's 12px. fitTitles measures and cuts
 * further where the fonts at hand are wider; counting alone also works while the view is detached.
 */
const TITLE_CHARS = 31;
/** Agent names in a group's heading: 13px bold across the group's width. */
export const AGENT_CHARS = 27;
/** The accessible name and tooltip keep a description whole up to here: enough to tell steps apart, not a page. */
const NAME_CHARS = 200;

export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
export const statusOf = (n: GraphNode) => n.step?.status ?? 'not_started';
export const statusText = (n: GraphNode) =>
  statusOf(n).replace('_', ' ') +
  (n.step && isUnblocked(n.step) ? ' · unblocked' : '') +
  (n.step?.stalled ? ' · stalled' : '');

/**
 * The visible first line: the step id always whole (it is what tells "step_101" from "step_10"), the description cut
 * to `room` characters of line in all.
 */
export const titleOf = (n: GraphNode, room = TITLE_CHARS) => {
  const description = n.step?.description ?? '';
  if (!description) return n.stepId;
  return `${n.stepId} ${clip(description, Math.max(2, room - n.stepId.length - 1))}`;
};

/**
 * What a screen reader and the tooltip say of a node. It starts with the node's visible text (its first line as drawn,
 * then its status), as a spoken command names it ("label in name"); the agent follows, then, if the line was cut, the
 * full id and description, or for a step not created yet, that.
 */
export const nodeName = (n: GraphNode, shown: string) => {
  // A step waited on before its agent added it has no description to cut: its name says why it is drawn dashed.
  const more = !n.step
    ? ', not created yet'
    : shown.endsWith('…')
      ? `. In full: ${n.stepId} ${clip(n.step.description, NAME_CHARS)}`
      : '';
  return `${shown} ${statusText(n)}, agent ${n.agentId}${more}`;
};
