import { neutralize } from '@planhub/shared';

/**
 * A tiny element builder: text is always set as text (never parsed as HTML) and neutralised (bidi and control
 * characters shown as [U+XXXX]), so agent-written strings are inert and read as they were stored.
 */
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;
type Child = Node | string | number | null | undefined | false;

export const h = (tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement => {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (name === 'class') el.className = String(value);
    else if (name === 'text') el.textContent = neutralize(String(value));
    else el.setAttribute(name, value === true ? '' : neutralize(String(value)));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : document.createTextNode(neutralize(String(child))));
  }
  return el;
};

/**
 * Replaces a section's content while keeping what a keyboard user is doing: the focused control (found again by
 * id), typed text in inputs and the caret or selection in the focused one survive a live update.
 */
export const replaceKeepingFocus = (container: HTMLElement, nodes: Node[]): void => {
  const active = document.activeElement;
  const activeId = active instanceof HTMLElement && container.contains(active) ? active.id : '';
  const typed = new Map<string, string>();
  container.querySelectorAll<HTMLInputElement>('input[id]').forEach((input) => typed.set(input.id, input.value));
  container.replaceChildren(...nodes);
  for (const [id, value] of typed) {
    const input = container.querySelector<HTMLInputElement>(`#${CSS.escape(id)}`);
    if (input) input.value = value;
  }
  if (!activeId) return;
  const again = container.querySelector<HTMLElement>(`#${CSS.escape(activeId)}`);
  again?.focus();
  // A new input's caret starts at the end: someone editing the middle of a rejection reason while the team's
  // events arrive would otherwise type the rest of it there.
  if (active instanceof HTMLInputElement && again instanceof HTMLInputElement && active.selectionStart !== null)
    again.setSelectionRange(active.selectionStart, active.selectionEnd, active.selectionDirection ?? undefined);
};

/** An id safe to use in the DOM for any agent- or plan-provided string. */
export const domId = (...parts: string[]): string =>
  parts.map((p) => p.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)).join('--');

/** A wall-clock time with its zone: a page left open all day is read from other zones and after midnight. */
export const clockOf = (ms: number): string =>
  new Date(ms).toLocaleString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
    timeZoneName: 'short',
    ...(new Date(ms).toDateString() === new Date().toDateString() ? {} : { month: 'short', day: 'numeric' }),
  });

export const timeOf = (iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString([], { hour12: false });
};

/**
 * Makes the container's children `nodes`, moving only what changed: a node kept from the last render is never
 * taken out, so focus inside it and the browser's place in the list survive an update.
 */
export const reconcile = (container: Element, nodes: Node[]): void => {
  const wanted = new Set(nodes);
  let ref = container.firstChild;
  const drop = () => {
    while (ref && !wanted.has(ref)) {
      const next: ChildNode | null = ref.nextSibling;
      ref.remove();
      ref = next;
    }
  };
  for (const node of nodes) {
    drop();
    if (node === ref) ref = ref.nextSibling;
    else container.insertBefore(node, ref);
  }
  // Every wanted node now stands before ref: what follows it goes.
  wanted.clear();
  drop();
};
