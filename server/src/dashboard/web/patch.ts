import { reconcile } from './dom.ts';

/** Attributes that say which thing an element shows: elements that differ in them are never patched into one. */
const KEY_ATTRIBUTES = [
  'id',
  'data-event-id',
  'data-agent-id',
  'data-plan-id',
  'data-step-id',
  'data-task-id',
  'data-output',
];

const keyOf = (node: Node): string | undefined => {
  if (!(node instanceof Element)) return undefined;
  const parts = KEY_ATTRIBUTES.map((name) => node.getAttribute(name) ?? '');
  return parts.some(Boolean) ? `${node.tagName}|${parts.join('|')}` : undefined;
};

const sameKind = (a: Node, b: Node): boolean => a.nodeType === b.nodeType && a.nodeName === b.nodeName;

const patchAttributes = (old: Element, next: Element): void => {
  for (const { name, value } of Array.from(next.attributes)) {
    if (old.getAttribute(name) === value) continue;
    // The page's CSP (style-src 'self') refuses a style attribute written as text; through the CSSOM it is allowed.
    if (name === 'style' && old instanceof HTMLElement && next instanceof HTMLElement)
      old.style.cssText = next.style.cssText;
    else old.setAttribute(name, value);
  }
  for (const { name } of Array.from(old.attributes)) if (!next.hasAttribute(name)) old.removeAttribute(name);
};

/**
 * Makes `old` look like `next`, which is thrown away: nodes of `next` that have no counterpart are moved into `old`,
 * so `next` must not be used again. Returns the node to keep.
 */
const patchNode = (old: Node, next: Node): Node => {
  if (old instanceof CharacterData) {
    if (old.data !== (next as CharacterData).data) old.data = (next as CharacterData).data;
    return old;
  }
  // Compared natively, an unchanged part (most of a page at each event) costs no walk in script.
  if (old instanceof Element && next instanceof Element && !old.isEqualNode(next)) {
    patchAttributes(old, next);
    patchChildNodes(old, Array.from(next.childNodes));
  }
  return old;
};

/** Pairs each new node with an old one it may become: the one with its key, else the next unkeyed one of its kind. */
const patchChildNodes = (container: Element, nodes: Node[]): Node[] => {
  const keyed = new Map<string, Node[]>();
  const unkeyed: Node[] = [];
  for (const child of Array.from(container.childNodes)) {
    const key = keyOf(child);
    if (key === undefined) unkeyed.push(child);
    else if (keyed.has(key)) keyed.get(key)!.push(child);
    else keyed.set(key, [child]);
  }
  let cursor = 0;
  const kept = nodes.map((next) => {
    const key = keyOf(next);
    let old: Node | undefined;
    if (key !== undefined) old = keyed.get(key)?.shift();
    else
      for (let i = cursor; i < unkeyed.length && !old; i++)
        if (sameKind(unkeyed[i]!, next)) {
          old = unkeyed[i];
          cursor = i + 1;
        }
    return old && sameKind(old, next) ? patchNode(old, next) : next;
  });
  reconcile(container, kept);
  return kept;
};

/** The element a focused link or button was, found again by what it points to and says. */
const sameControl = (container: Element, lost: HTMLElement): HTMLElement | undefined =>
  Array.from(container.querySelectorAll<HTMLElement>(lost.tagName)).find(
    (el) => el.getAttribute('href') === lost.getAttribute('href') && el.textContent === lost.textContent,
  );

/**
 * Makes the container's content that of `nodes`, changing only what differs: an element or text the new content
 * still has stays the same node, so what a reader focused or selected in it survives a live update (and the browser
 * styles and lays out only what changed). A focused control that had to be rebuilt gets the focus back. Event
 * handlers are not moved from a new element to the old one it patches: the content patched this way has none.
 * Returns the nodes now in the container, one for each of `nodes` (the old one that took its place, or itself).
 */
export const patchChildren = (container: HTMLElement, nodes: Node[]): Node[] => {
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && container.contains(active) ? active : undefined;
  const kept = patchChildNodes(container, nodes);
  if (focused && !focused.isConnected) sameControl(container, focused)?.focus();
  return kept;
};
