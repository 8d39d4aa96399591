import type { PlanMode, NewEvent, Plan } from '@planhub/shared';
import { agentEvent } from '../plans/plan-events.ts';

export interface ModeChange {
  workspace: string;
  agent_id: string;
  from: PlanMode;
  to: PlanMode;
  goal?: string | undefined;
  by: string;
  plan?: Pick<Plan, 'plan_id' | 'title'> | undefined;
}

/** mode_changed, or nothing when the mode did not change (a repeat). */
export const modeChanged = (change: ModeChange, now: string): NewEvent[] =>
  change.from === change.to
    ? []
    : [
        // source_agent is whoever caused the change, so a user's decision reaches the agent whose mode it changed.
        agentEvent(
          { workspace: change.workspace, agent_id: change.by, now },
          'mode_changed',
          {
            agent_id: change.agent_id,
            from: change.from,
            to: change.to,
            goal: change.goal ?? null,
            plan_id: change.plan?.plan_id ?? null,
          },
          change.plan,
        ),
      ];
