import type { CallAck } from '@planhub/shared';
import type { Socket } from 'socket.io-client';
import { runOpenLoop } from './open-loop.ts';
import { estimateCapacity } from './closed-loop.ts';
import type { Observe } from './plan-agents.ts';
import { openSlots } from './plan-agents.ts';
import { openAgent, openSocket } from './wire-client.ts';
import { settleDepartures } from './departures.ts';
import type { Probe, ProbeOutcome } from '../stats/rate-search.ts';

/** A prepared load target: connections open, plans started; `send(i)` issues request i. */
export interface LoadSession {
  send(i: number): Promise<number | void>;
  close(): void;
}
export type SessionFactory = (tag: string) => Promise<LoadSession>;

export interface Timing {
  warmupMs: number;
  probeMs: number;
  drainMs: number;
  quiesceMs: number;
  /** Set for rate searches (see OpenLoopOptions.abortAfterMs); fixed-rate latency runs always run to the end. */
  abortAfterMs?: number;
  /** How long after the last agent left a run starts measuring (departures.ts); 0 or absent: at once. */
  settleMs?: number;
}

let sessions = 0;
/** Every run gets fresh agents (and, where asked, a fresh workspace), named after this tag. */
export const nextTag = () => `r${++sessions}`;

const FLOOR_ARGS = { step_id: 'step_1', status: 'completed', result: 'done' };

/** A floor's load: `connections` sockets, each "call" acknowledged by the floor server. */
export const floorSessions =
  (url: string, connections: number): SessionFactory =>
  async () => {
    const sockets: Socket[] = await Promise.all(Array.from({ length: connections }, () => openSocket(url)));
    return {
      async send(i) {
        const socket = sockets[i % sockets.length] as Socket;
        const ack = (await socket
          .timeout(10_000)
          .emitWithAck('call', { tool: 'setStepStatus', args: FLOOR_ARGS })) as CallAck;
        if (!ack.ok) throw new Error(`${ack.error.code} ${ack.error.message}`);
      },
      close: () => sockets.forEach((s) => s.close()),
    };
  };

/** A tool name no catalog has: the call goes through the transport, admission and dispatch, and is refused there. */
export const NO_SUCH_TOOL = 'noSuchTool';

/**
 * PlanHub's cost of a call that does no work: `agents` agents each calling a tool that does not exist, refused with
 * NOT_FOUND before any store access. Its CPU beside the echo floor's is what the transport and dispatch cost alone.
 */
export const refusedCallSessions =
  (url: string, agents: number): SessionFactory =>
  async (tag) => {
    const sockets = await Promise.all(
      Array.from({ length: agents }, (_, i) => openAgent(url, `bench-refused-${tag}`, `${tag}-a${i}`)),
    );
    return {
      async send(i) {
        const socket = sockets[i % sockets.length] as Socket;
        const ack = (await socket.timeout(10_000).emitWithAck('call', { tool: NO_SUCH_TOOL, args: {} })) as CallAck;
        if (ack.ok || ack.error.code !== 'NOT_FOUND')
          throw new Error(`expected NOT_FOUND for ${NO_SUCH_TOOL}, got ${JSON.stringify(ack).slice(0, 200)}`);
      },
      close: () => sockets.forEach((s) => s.close()),
    };
  };

/** PlanHub's load: `agents` concurrent agents completing steps of their plans with setStepStatus. */
export const planhubSessions =
  (options: {
    url: string;
    agents: number;
    steps: number;
    /** Prepares (and names) the workspace of a run. */
    workspace: (tag: string) => Promise<string>;
    observe?: Observe;
  }): SessionFactory =>
  async (tag) => {
    const workspace = await options.workspace(tag);
    const slots = await openSlots(options.url, workspace, tag, options.agents, options.steps, 16);
    return {
      send: (i) => slots[i % slots.length]!.send(options.observe),
      close: () => slots.forEach((s) => s.close()),
    };
  };

/**
 * One fixed-rate run on a fresh session. With `cpu`, the CPU time of the processes serving the run is read just
 * around the run (after the session's setup) and reported per request: a figure other load on the machine barely
 * moves, unlike latency.
 */
export const probeOf =
  (factory: SessionFactory, timing: Timing, cpu?: () => number | undefined): Probe =>
  async (rate): Promise<ProbeOutcome> => {
    const session = await factory(nextTag());
    try {
      await settleDepartures(timing.settleMs ?? 0);
      const cpuBefore = cpu?.();
      const outcome = await runOpenLoop({
        rate,
        warmupMs: timing.warmupMs,
        durationMs: timing.probeMs,
        drainMs: timing.drainMs,
        quiesceMs: timing.quiesceMs,
        ...(timing.abortAfterMs !== undefined ? { abortAfterMs: timing.abortAfterMs } : {}),
        send: (i) => session.send(i),
      });
      const cpuAfter = cpu?.();
      const requests = Math.round((rate * (timing.warmupMs + timing.probeMs)) / 1000);
      if (cpuBefore === undefined || cpuAfter === undefined || requests === 0) return outcome;
      return { ...outcome, serverCpuUs: Math.round(((cpuAfter - cpuBefore) * 1000) / requests) };
    } finally {
      session.close();
    }
  };

/** Where a rate search starts when nothing is known yet (see closed-loop.ts for why this is not a figure). */
export const capacityOf = async (factory: SessionFactory, durationMs: number, settleMs = 0): Promise<number> => {
  const session = await factory(nextTag());
  try {
    await settleDepartures(settleMs);
    return await estimateCapacity((i) => session.send(i), { concurrency: 32, durationMs });
  } finally {
    session.close();
  }
};
