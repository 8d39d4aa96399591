/**
 * Keys inside a workspace. The Redis store prefixes them with `ph:{<workspace>}:` and a kind (`doc:`, `set:`,
 * `hash:`), so a document and a set of the same name are different things. A step's node is `<plan_id>:<step_id>`.
 */
export const docKeys = {
  agent: (agentId: string) => `agent:${agentId}`,
  /** Legacy: the agent index as one document; read (never written) until the set below holds everything. */
  agentIndex: () => 'agents',
  /** A plan's header (everything but its steps, and their order); a plan of the earlier layout is whole here. */
  plan: (planId: string) => `plan:${planId}`,
  /** One step of a plan, with the same-plan steps waiting on it. */
  planStep: (planId: string, stepId: string) => `step:${planId}:${stepId}`,
  subscriptions: (agentId: string) => `subs:${agentId}`,
  todoList: (agentId: string) => `todo001:${agentId}`,
  persistentTodos: (agentId: string) => `todo002:${agentId}`,
  planMode: (agentId: string) => `planMode:${agentId}`,
  /**
   * Legacy: the same document as builds before 534ad52 (0.1.0 among them) named it; read where `planMode:` is absent,
   * and deleted by the next write of the agent's mode (tools/plan-mode/mode-access.ts).
   */
  legacyPlanMode: (agentId: string) => `mode002:${agentId}`,
  /** Legacy: seed 003's task list as one document, split into the per-task keys below on first access. */
  tasks: () => 'tasks',
  /** One seed-003 task (its edges on both ends live on the task documents). */
  task: (id: string) => `task:${id}`,
  /** Legacy: the workspace's dependency graph as one document, upgraded into the per-step keys below. */
  dependencyGraph: () => 'deps',
  /**
   * Who waits on a step (other plans' steps), by the target's node; may exist before the target does. Its version is
   * bumped by every registration (the waiters themselves are in the hash of the same name); its value is the list
   * of the earlier layout, where one was stored.
   */
  waiters: (node: string) => `waiters:${node}`,
  /**
   * Steps of a running plan that waits were registered on before the plan had them (`plan_id` named): the plan's end
   * releases their waiters, since a finished plan gets no more steps.
   */
  awaitedSteps: (planId: string) => `awaited:${planId}`,
  /**
   * A dependency node's edge clock: bumped by every call that adds edges from the node, and read checked by every
   * cycle check that walks through it, so two additions that together close a cycle never both commit.
   */
  edgeClock: (node: string) => `edge-clock:${node}`,
  /**
   * Whether the workspace log last said the agent is online or offline: read checked by every agent_online and
   * agent_offline, and written with it, so nodes racing to report one change append it once.
   */
  presence: (agentId: string) => `presence:${agentId}`,
} as const;

export const setKeys = {
  /** A waiting step's outstanding dependencies on other plans' steps (nodes): the fan-in set. */
  outstanding: (node: string) => `out:${node}`,
  /** Every unresolved edge from a step (other plans and its own plan alike): what the cycle check walks. */
  edges: (node: string) => `edges:${node}`,
  /**
   * Who waits on a plan's steps from other plans (JSON [node, agent_id, plan_id, step_id] per waiter), bounded by
   * waitersPerPlan: the count its registrations race on, exactly, without conflicting (tools/step-waiters.ts).
   */
  waitersOn: (planId: string) => `waiters-on:${planId}`,
  /** Waits on steps no plan holds yet (waits by agent and step id), bounded by pendingWaiters, as above. */
  pendingWaiters: () => 'waiters-pending',
  /** Every seed-003 task id of the workspace (TaskList's starting point). */
  taskIds: () => 'task-ids',
  /** Seed-003 tasks not completed: the last one to leave it runs the all-completed cleanup (a fan-in). */
  openTasks: () => 'task-open',
} as const;

export const hashKeys = {
  /** Every agent that has used the workspace (getWorkspace's starting point): agent → when it first appeared. */
  agents: () => 'agents',
  /**
   * A plan's steps in brief (step id → JSON [status, sequence, description]), kept with every step write and by the
   * fan-in that unblocks a step: a step change reads it instead of every sibling step's document.
   */
  stepBriefs: (planId: string) => `steps:${planId}`,
  /**
   * Who waits on a step from other plans, by the target's node: field = JSON [agent_id, plan_id, step_id]. Added
   * to by commutative operations, each bumping the document of the same name (tools/step-waiters.ts).
   */
  waiters: (node: string) => `waiters:${node}`,
  /** Outputs a waiting step received while blocked: field = JSON-encoded key, value = JSON. */
  received: (node: string) => `recv:${node}`,
  /** Seed-004 plans kept in one working_dir, by any agent of the workspace: plan_id → when it last changed. */
  workingDir: (dir: string) => `workdir:${dir}`,
} as const;

export const zsetKeys = {
  /**
   * A plan's steps scored by status band, then sequence (tools/step-ranks.ts), kept with every step write and by the
   * fan-in that unblocks a step: a step change counts the plan's steps and finds the next open one from it.
   */
  stepsByStatus: (planId: string) => `steps-by-status:${planId}`,
} as const;

export const counterKeys = {
  /** Highest seed-003 task id ever given out: ids are never reused, not even after the cleanup. */
  taskIds: () => 'task-ids',
  /**
   * Legacy: the waitersPerPlan count before the set of the same name (round 13); never read, deleted with its plan.
   * The pendingWaiters count of that time (`waiters-pending`) is left as it was.
   */
  waitersOn: (planId: string) => `waiters-on:${planId}`,
} as const;
