import { connect } from '../client.ts';
import { parseCli } from './options.ts';
import { planCommand } from './plan-command.ts';
import { tokenCommand } from './token-command.ts';
import { approveCommand, rejectCommand } from './decide-command.ts';
import { eventsCommand } from './events-command.ts';
import { watchCommand } from './watch-command.ts';
import { mcpCommand } from './mcp-command.ts';

const USAGE = `planhub <command> [options]

Commands:
  plan --agent <id> | --plan <id>   show a plan the way seed 000's "plan" command does
  token --agent <id> [--role agent|user|dashboard] [--ttl 1h] [--secret s]
                                    mint a token for a server in secret mode (secret: env PLANHUB_SECRET)
  watch [--agent <id>]              every agent's plan (seed 000's rendering) and todos, redrawn live
  events [--follow] [--agent <id>] [--type t1,t2] [--after <event_id>] [--limit n]
                                    recent events as JSON lines; --follow keeps printing new ones
  approve <plan_id>                 approve a plan waiting for approval (as a user)
  reject <plan_id> [--reason <r>]   reject it

Options:
  --url <url>          PlanHub node (env PLANHUB_URL, default http://127.0.0.1:4000)
  --workspace, -w <w>  workspace (env PLANHUB_WORKSPACE, default "default")
  --token <jwt>        token for a server in secret mode (env PLANHUB_TOKEN)`;

const COMMANDS = {
  plan: planCommand,
  watch: watchCommand,
  events: eventsCommand,
  approve: approveCommand,
  reject: rejectCommand,
} as const;

// `planhub events --follow | head -1`: once the reader of the pipe is gone nobody is left to print for. End quietly,
// as Unix tools do, instead of dying on an unhandled EPIPE 'error' event with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  console.error(`planhub: cannot write the output: ${err.message}`);
  process.exit(1);
});

const main = async (): Promise<number> => {
  if (process.argv[2] === 'mcp') return mcpCommand(process.argv.slice(3), process.env);
  const options = parseCli(process.argv.slice(2), process.env);
  if (options.command === 'token' && !options.help) {
    console.log(await tokenCommand(options, process.env));
    return 0;
  }
  const command = options.command as keyof typeof COMMANDS | undefined;
  if (options.help || command === undefined || !(command in COMMANDS)) {
    console.log(USAGE);
    return options.help ? 0 : 2;
  }
  const client = await connect({
    url: options.url,
    workspace: options.workspace,
    agentId: 'planhub-cli',
    role: 'user',
    retries: 0,
    ...(options.token !== undefined ? { token: options.token } : {}),
  });
  try {
    const output = await COMMANDS[command](client, options);
    if (output) console.log(output);
    return 0;
  } finally {
    client.close();
  }
};

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`planhub: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
