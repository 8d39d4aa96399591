/** Document keys inside a workspace. The Redis store prefixes them with `ph:{<workspace>}:`. */
export const docKeys = {
  agent: (agentId: string) => `agent:${agentId}`,
  /** Every agent that has used the workspace (getWorkspace's starting point); written only when a new agent appears. */
  agentIndex: () => 'agents',
  plan: (planId: string) => `plan:${planId}`,
  subscriptions: (agentId: string) => `subs:${agentId}`,
  todos001: (agentId: string) => `todo001:${agentId}`,
  todos002: (agentId: string) => `todo002:${agentId}`,
  mode002: (agentId: string) => `mode002:${agentId}`,
  tasks: () => 'tasks',
  /** Unresolved cross-agent dependency edges of the workspace, for the cycle check. */
  dependencyGraph: () => 'deps',
} as const;
