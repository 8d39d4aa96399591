import { neutralize } from '@planhub/shared';

const NS = 'http://www.w3.org/2000/svg';

/** The SVG counterpart of h(): attributes set as attributes, text neutralised, never parsed as markup. */
export const s = (
  tag: string,
  attrs: Record<string, string | number | undefined> = {},
  ...children: (Node | string)[]
) => {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) el.setAttribute(name, String(value));
  for (const child of children)
    el.append(typeof child === 'string' ? document.createTextNode(neutralize(child)) : child);
  return el;
};
