import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';

export interface MachineInfo {
  cpu_model: string;
  cores: number;
  memory_gib: number;
  os: string;
  node: string;
  redis: string;
  /** 1-minute load average when the run started and ended: other work on the machine shows up here. */
  load_average: { start: number; end: number };
}

/** Where the figures came from: they only mean something next to the machine that produced them. */
export const machineInfo = (redisVersion: string, loadAtStart: number): MachineInfo => {
  const cpu = cpus();
  return {
    cpu_model: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    os: `${osType()} ${release()}`,
    node: process.version,
    redis: redisVersion,
    load_average: { start: loadAtStart, end: currentLoad() },
  };
};

export const currentLoad = (): number => Math.round((loadavg()[0] ?? 0) * 100) / 100;
