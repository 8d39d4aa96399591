import type { Socket } from 'socket.io-client';
import { call, openAgent } from './wire-client.ts';

/** Called as a measured setStepStatus goes out, with what identifies the event it causes. */
export type Observe = (agentId: string, planId: string, stepId: string) => Promise<number>;

/**
 * One agent identity with a started plan of `steps` steps. Each measured call completes the next pending step
 * (a real write: the plan and the agent's index change and a step_completed event is appended and published).
 * When the plan is used up the identity "rolls": it completes that plan and creates and starts a new one.
 */
class PlanIdentity {
  private planId = '';
  private nextStep = 1;
  private inflight = 0;
  private idleWaiters: Array<() => void> = [];
  private rolling: Promise<void> | undefined;
  /** A failed roll leaves the identity without a plan: its later calls fail with that error. */
  private broken: Error | undefined;
  private hadError = false;

  constructor(
    readonly socket: Socket,
    readonly agentId: string,
    private readonly steps: number,
  ) {}

  /** Steps of the current plan (the first may be shorter: see AgentSlot.open). */
  private size = 0;

  get exhausted(): boolean {
    return this.nextStep > this.size;
  }

  async newPlan(size = this.steps): Promise<void> {
    const created = await call(this.socket, 'createPlan', {
      title: 'bench plan',
      steps: Array.from({ length: size }, (_, i) => `work item ${i + 1}`),
    });
    this.size = size;
    // The bench's servers run with PLANHUB_APPROVAL_POLICY=auto, so startPlan answers at once.
    await call(this.socket, 'startPlan', { plan_id: created.plan_id });
    this.planId = created.plan_id;
    this.nextStep = 1;
    this.hadError = false;
  }

  startRoll(): void {
    this.rolling ??= this.roll().then(
      () => void (this.rolling = undefined),
      (err: unknown) => {
        this.broken = err instanceof Error ? err : new Error(String(err));
        this.rolling = undefined;
      },
    );
  }

  private async roll(): Promise<void> {
    if (this.inflight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await call(this.socket, 'completePlan', { plan_id: this.planId, status: this.hadError ? 'failed' : 'completed' });
    await this.newPlan();
  }

  send(observe?: Observe): Promise<number | void> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.rolling) return this.rolling.then(() => this.send(observe));
    if (this.exhausted) {
      this.startRoll();
      return this.send(observe);
    }
    const stepId = `step_${this.nextStep++}`;
    this.inflight += 1;
    const acked = call(this.socket, 'setStepStatus', { step_id: stepId, status: 'completed', result: 'done' }).then(
      () => undefined,
      (err: unknown) => {
        this.hadError = true;
        throw err;
      },
    );
    const done = acked.finally(() => {
      this.inflight -= 1;
      if (this.inflight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
    if (!observe) return done;
    const observed = observe(this.agentId, this.planId, stepId);
    // The sample completes when the event arrives; a refused call fails it (and must not leave it waiting).
    return Promise.all([done, observed]).then(([, at]) => at);
  }
}

/**
 * One of the N concurrent agents of a run. It holds two identities and alternates between them: while one rolls
 * its finished plan over to a new one (three calls of background load), the other carries the measured calls, so
 * measured latency is setStepStatus's own and plans stay a realistic size. If both are rolling, calls wait, and that
 * wait counts (latency is from the intended send time).
 */
export class AgentSlot {
  private active = 0;

  private constructor(private readonly identities: readonly [PlanIdentity, PlanIdentity]) {}

  /**
   * `firstPlanSteps` sizes the first plan of the identity that starts: agents given different sizes roll over at
   * different times, as independent agents would, instead of all at once every `steps` calls.
   */
  static async open(
    url: string,
    workspace: string,
    agentBase: string,
    steps: number,
    firstPlanSteps = steps,
  ): Promise<AgentSlot> {
    const identities = await Promise.all(
      ['x', 'y'].map(async (suffix, i) => {
        const agentId = `${agentBase}${suffix}`;
        const identity = new PlanIdentity(await openAgent(url, workspace, agentId), agentId, steps);
        await identity.newPlan(i === 0 ? firstPlanSteps : steps);
        return identity;
      }),
    );
    return new AgentSlot(identities as [PlanIdentity, PlanIdentity]);
  }

  send(observe?: Observe): Promise<number | void> {
    let identity = this.identities[this.active] as PlanIdentity;
    if (identity.exhausted) {
      identity.startRoll();
      this.active ^= 1;
      identity = this.identities[this.active] as PlanIdentity;
    }
    return identity.send(observe);
  }

  close(): void {
    for (const identity of this.identities) identity.socket.close();
  }
}

/**
 * Opens `count` slots a few at a time: new agents all register in one workspace index, which is a hot document.
 * Their first plans have from `steps` down to 1 step, spread evenly, so their rollovers are spread over time.
 */
export const openSlots = async (
  url: string,
  workspace: string,
  tag: string,
  count: number,
  steps: number,
  concurrency = 8,
): Promise<AgentSlot[]> => {
  const slots: AgentSlot[] = [];
  try {
    for (let i = 0; i < count; i += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, count - i) }, (_, j) =>
        AgentSlot.open(url, workspace, `${tag}-a${i + j}`, steps, steps - Math.floor(((i + j) * steps) / count)),
      );
      slots.push(...(await Promise.all(batch)));
    }
  } catch (err) {
    for (const slot of slots) slot.close();
    throw err;
  }
  return slots;
};
