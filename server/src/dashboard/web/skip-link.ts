/**
 * The skip link moves the focus itself instead of following its href: the hash names the view (router.ts), so
 * following `#main` would route to the overview. The href stays a real in-page target for axe and for no-JS readers.
 */
export const wireSkipLink = (doc: Document): void => {
  doc.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a.skip') : null;
    const id = link?.getAttribute('href')?.replace(/^#/, '');
    const target = id ? doc.getElementById(id) : null;
    if (!target) return;
    event.preventDefault();
    target.focus();
  });
};
