#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { approveCommand, rejectCommand } from './decide-command.ts';
import { eventsCommand } from './events-command.ts';
import { EXIT, EXIT_CODES_HELP, exitCodeOf } from './exit-codes.ts';
import { planCommand } from './plan-command.ts';
import { tokenCommand } from './token-command.ts';
import { VERSION } from './version.ts';
import { watchCommand } from './watch-command.ts';
import { mcpCommand } from './mcp-command.ts';
import { mcpHelpCommand } from './mcp-help.ts';

// `planhub events --follow | head -1`: once the reader of the pipe is gone nobody is left to print for. End quietly,
// as Unix tools do, instead of dying on an unhandled EPIPE 'error' event with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  console.error(`planhub: cannot write the output: ${err.message}`);
  process.exit(EXIT.refused);
});

const program = new Command('planhub')
  .description('Talk to a PlanHub node: show plans, follow events, decide approvals, mint tokens.')
  .version(VERSION)
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)')
  .addHelpText('after', `\n${EXIT_CODES_HELP}\n\nEvery command has its own --help (planhub events --help).`);

// One line per command; each file defines its options, help and action.
for (const define of [planCommand, watchCommand, eventsCommand, approveCommand, rejectCommand, tokenCommand])
  define(program).exitOverride().addHelpText('after', `\n${EXIT_CODES_HELP}\n`);
// Defined for its help only: `planhub mcp` owns stdin/stdout as an MCP server and parses its own options (run() below).
const mcp = mcpHelpCommand(program).exitOverride();

const run = async (): Promise<number> => {
  try {
    if (process.argv[2] === 'mcp') return await mcpCommand(process.argv.slice(3), process.env, () => mcp.outputHelp());
    await program.parseAsync(process.argv);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError)
      // Commander has printed the message (or the help, or the version) already.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    console.error(`planhub: ${err instanceof Error ? err.message : String(err)}`);
    return exitCodeOf(err);
  }
};

void run().then((code) => process.exit(code));
