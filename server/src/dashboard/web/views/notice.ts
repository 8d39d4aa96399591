import { neutralize } from '@planhub/shared';
import { h } from '../dom.ts';
import { undecidedText, waitsForSameDecision } from '../decision-outcome.ts';
import type { DashboardState } from '../state.ts';

/**
 * The alert under the header: a decision not made (decision-outcome.ts) beside any other notice, and a button to
 * dismiss the former. A refused decision's notice stays after its plan stopped waiting, so it is the reader who
 * says they have read it; the button sits outside the alert, which would otherwise announce "Dismiss" with it.
 */
export const noticeView = (state: DashboardState, dismissed: () => void) => {
  const alert = h('div', { id: 'notice', role: 'alert', class: 'notice' });
  const dismiss = h(
    'button',
    {
      id: 'notice-dismiss',
      type: 'button',
      class: 'notice-dismiss',
      hidden: true,
      onclick: () => {
        state.undecided = undefined;
        dismissed();
      },
    },
    'Dismiss',
  );
  return {
    el: h('div', { class: 'notice-bar' }, alert, dismiss),
    update() {
      // A decision not made says so only while its plan still waits for the same kind of decision (decided
      // elsewhere, it is moot). A refused one stays: the reader's decision lost to someone else's.
      const u = state.undecided;
      if (u && !u.refused && !waitsForSameDecision(state, u)) state.undecided = undefined;
      // An alert is announced each time its text is written: only a new message is.
      const text = neutralize([undecidedText(state), state.notice?.text].filter(Boolean).join(' '));
      if (alert.textContent !== text) alert.textContent = text;
      const className = `notice ${state.undecided ? 'error' : (state.notice?.kind ?? '')}`;
      if (alert.className !== className) alert.className = className;
      const hidden = state.undecided === undefined;
      if (dismiss.hidden !== hidden) dismiss.hidden = hidden;
    },
  };
};
