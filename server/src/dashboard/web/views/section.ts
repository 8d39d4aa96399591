import { h } from '../dom.ts';

/** A panel of the page: its heading (focusable from script, for the focus moves of view-focus.ts) and its body. */
export const section = (id: string, title: string, ...extra: Node[]) => {
  const body = h('div', { class: 'section-body', id: `${id}-body` });
  const heading = h('h2', { id: `${id}-h`, tabindex: -1 }, title);
  return {
    body,
    heading,
    el: h('section', { id, class: `panel ${id}`, 'aria-labelledby': `${id}-h` }, heading, ...extra, body),
  };
};
