import type { Command } from 'commander';
import { Option } from 'commander';

/** What `planhub mcp` assumes when neither an option nor the environment says otherwise. */
export const MCP_DEFAULTS = { url: 'http://127.0.0.1:4000', workspace: 'default' } as const;

/** Not the other commands' list: the bridge never gives up on a node (no exit 3), it answers the host instead. */
export const MCP_EXIT_CODES_HELP = `Exit codes:
  0  done: the host closed stdin
  1  failed: the bridge could not start
  2  usage: unknown option, missing or invalid argument`;

/**
 * `planhub mcp` as commander knows it, so `planhub --help`, `planhub help mcp` and `planhub mcp --help` all print one
 * help, laid out as every other command's. Commander never runs it: the bridge owns stdin/stdout and parses its own
 * options (mcp-command.ts), which these must describe.
 */
export const mcpHelpCommand = (program: Command): Command =>
  program
    .command('mcp')
    .summary("an MCP server on stdio that forwards to a node's /mcp as one agent")
    .description(
      "an MCP server on stdin/stdout for hosts that only spawn processes: it forwards every MCP message to a node's " +
        '/mcp endpoint, as one agent. Configure one process per agent (parent, each subagent). Runs until the host ' +
        'closes stdin.',
    )
    .addOption(new Option('--url <url>', 'PlanHub node').env('PLANHUB_URL').default(MCP_DEFAULTS.url))
    .addOption(
      new Option('-w, --workspace <name>', 'workspace, open mode')
        .env('PLANHUB_WORKSPACE')
        .default(MCP_DEFAULTS.workspace),
    )
    .addOption(new Option('-a, --agent <id>', 'agent id, open mode (required without a token)').env('PLANHUB_AGENT'))
    .addOption(
      new Option('--token <jwt>', 'token for a node in secret mode; it names the agent itself').env('PLANHUB_TOKEN'),
    )
    .addOption(
      new Option('--dialects <list>', 'tool dialects of 000-004 and planhub, e.g. 000,004; all when unset').env(
        'PLANHUB_DIALECTS',
      ),
    )
    .addHelpText('after', `\n${MCP_EXIT_CODES_HELP}\n`);
