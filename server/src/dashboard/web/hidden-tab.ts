/**
 * Browsers run no animation frame in a hidden tab, and a dashboard spends most of the day in one, where its title and
 * icon are all a person sees: while hidden, those are updated at once on each change (they cost a string compare),
 * the sections wait, and the whole page is drawn the moment the tab is shown again.
 */
export const watchHiddenTab = (doc: Document, updateTab: () => void, renderNow: () => void) => {
  doc.addEventListener('visibilitychange', () => (doc.hidden ? updateTab() : renderNow()));
  return {
    /** Something the title or icon may show changed: a frame will draw it, unless the tab is hidden. */
    changed() {
      if (doc.hidden) updateTab();
    },
  };
};
