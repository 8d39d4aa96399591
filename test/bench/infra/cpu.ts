import { readFileSync } from 'node:fs';

/** Linux reports process times in clock ticks of 10 ms (USER_HZ = 100 on every mainstream kernel). */
const MS_PER_TICK = 10;

/** CPU time (user + system, ms) a process has used so far, or undefined where /proc is not available. */
export const cpuMsOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces; the fields after it are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return undefined;
  }
};

/** Summed CPU time of a set of processes (the servers and Redis a run exercises). */
export const cpuMeter =
  (pids: readonly number[]): (() => number | undefined) =>
  () => {
    let sum = 0;
    for (const pid of pids) {
      const ms = cpuMsOf(pid);
      if (ms === undefined) return undefined;
      sum += ms;
    }
    return sum;
  };
