import { spawnTs } from './spawn-node.ts';

const ATTACKER = new URL('./cpu-attacker.ts', import.meta.url).pathname;

/** Keys of one attack frame, and frames per second while the attack runs. */
export const ATTACK_FRAME_KEYS = 60_000;
export const ATTACK_FRAMES_PER_SECOND = 7;

export interface AttackAnswer {
  code: string;
  message: string;
}

export interface CpuAttacker {
  /** Bytes of one frame's JSON, as the attacker reported once connected. */
  frameBytes: number;
  /** Every acknowledgement the attacker received so far, in order. */
  answers(): AttackAnswer[];
  /** Starts the frames and resolves at the first answer after it: from then on the node is under attack. */
  start(): Promise<void>;
  /** Pauses the frames and resolves once none is left in flight. */
  pause(): Promise<void>;
  /** Throws, with what the attacker printed, if its process has ended (the node cut it, or it crashed). */
  assertRunning(): void;
  stop(): Promise<void>;
}

/**
 * The attacker of cpu-attacker.ts in its own process, so encoding and writing its frames costs the process that
 * measures nothing: shared by the security test (what the frames are answered) and `pnpm bench` (what they cost a
 * bystander).
 */
export const startCpuAttacker = async (
  url: string,
  perSecond = ATTACK_FRAMES_PER_SECOND,
  keys = ATTACK_FRAME_KEYS,
): Promise<CpuAttacker> => {
  const attacker = spawnTs(ATTACKER, [url, String(perSecond), String(keys)], {});
  const answers = () =>
    [...attacker.output().matchAll(/^answer (\S+) ?(.*)$/gm)].map(([, code = '', message = '']) => ({ code, message }));
  let starts = 0;
  let pauses = 0;
  try {
    const [, frameBytes] = await attacker.waitFor(/ready (\d+)/);
    return {
      frameBytes: Number(frameBytes),
      answers,
      assertRunning() {
        const { exitCode, signalCode } = attacker.child;
        if (exitCode !== null || signalCode !== null)
          throw new Error(`the attacker exited (${exitCode ?? signalCode}):\n${attacker.output().slice(-2000)}`);
      },
      stop: () => attacker.stop(),
      async start() {
        attacker.send('start');
        await attacker.waitFor(new RegExp(`^loud ${++starts}$`, 'm'));
      },
      async pause() {
        attacker.send('stop');
        await attacker.waitFor(new RegExp(`^paused ${++pauses}$`, 'm'));
      },
    };
  } catch (err) {
    await attacker.stop();
    throw err;
  }
};
