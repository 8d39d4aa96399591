/**
 * The crowded-workspace scenario's shape: a workspace watched by many connections (a dashboard on every desk, an agent
 * host per subagent) gets events at a steady rate, and a bystander in another workspace calls at a fixed rate. Each
 * event is one socket write per watcher: with 500 watchers one event is about 500 writes, 20–60 µs each.
 */
export const CROWD_WATCHERS = 500;
/** Events per second in the crowded workspace: each a setStepStatus by one of its agents. */
export const CROWD_EVENTS_PER_SECOND = 10;
/** The bystander's fixed arrival rate (getPlanStatus), calls/s. */
export const CROWD_BYSTANDER_RATE = 200;
/** The crowded workspace's name: the watchers' process and the suite must agree on it. */
export const CROWD_WORKSPACE = 'crowd';
