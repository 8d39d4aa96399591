import { PlanHubError } from '@planhub/shared';

/** What every call answers once the store was found wiped (see redis/store-epoch.ts). */
export const DATA_LOSS_MESSAGE =
  "PlanHub's store lost its data: Redis was wiped or restarted empty after this PlanHub node started, so the " +
  'plans, steps, tasks, todos and events made before no longer exist. Nothing is run as new work (a request_id ' +
  'answered before is not run again) until an operator restarts PlanHub; then create a new plan (createPlan) and ' +
  'redo what was lost. Retrying now does not help.';

export const dataLossError = (planId?: string) =>
  new PlanHubError(
    'DATA_LOSS',
    planId === undefined
      ? DATA_LOSS_MESSAGE
      : `${DATA_LOSS_MESSAGE} Your plan ${JSON.stringify(planId)} no longer exists.`,
    { kind: 'store_data_lost' },
  );
