/** One instruction of a Dockerfile: `COPY --from=build /out/dist ./dist` → { op: 'COPY', args: '--from=build …' }. */
export interface Instruction {
  op: string;
  args: string;
  line: number;
}

export interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/**
 * Enough of the Dockerfile grammar to lint one: comments and blank lines dropped, `\` continuations joined,
 * instructions grouped by the FROM that starts their stage. Parser directives and heredocs are not used here.
 */
export const parseDockerfile = (text: string): { args: Instruction[]; stages: Stage[] } => {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (pending === undefined && (line === '' || line.startsWith('#'))) return;
    if (pending !== undefined && line.startsWith('#')) return;
    const joined = pending ? `${pending.text} ${line}` : line;
    const start = pending?.line ?? i + 1;
    if (joined.endsWith('\\')) {
      pending = { text: joined.slice(0, -1).trim(), line: start };
      return;
    }
    pending = undefined;
    const [op = '', ...rest] = joined.split(/\s+/);
    instructions.push({ op: op.toUpperCase(), args: rest.join(' '), line: start });
  });
  const args: Instruction[] = [];
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.op === 'FROM') {
      const [image = '', as, name] = ins.args.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) args.push(ins);
    else stages[stages.length - 1]?.instructions.push(ins);
  }
  return { args, stages };
};

/** The JSON array of an exec-form CMD/ENTRYPOINT/HEALTHCHECK CMD, or undefined for the shell form. */
export const execForm = (args: string): string[] | undefined => {
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
};
