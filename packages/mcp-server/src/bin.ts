import { CommandLineError, parseCommandLine, USAGE } from './command-line.js';
import { serveStdio } from './serve.js';
import { SERVER_VERSION } from './version.js';

// stdout carries the protocol: everything for people goes to stderr.
async function main(): Promise<void> {
  let commandLine: ReturnType<typeof parseCommandLine>;
  try {
    commandLine = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    if (error instanceof CommandLineError) {
      process.stderr.write(`assistant-kit-mcp: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    throw error;
  }
  if (commandLine === 'help') {
    process.stderr.write(USAGE);
    return;
  }
  if (commandLine === 'version') {
    // The one line a person asked for goes to stdout, like every CLI's --version.
    process.stdout.write(`${SERVER_VERSION}\n`);
    return;
  }
  const running = await serveStdio(commandLine);
  const shutDown = () => {
    running.close().finally(() => process.exit(0));
  };
  process.stdin.on('end', shutDown);
  // A client that went away mid-answer breaks the pipe (EPIPE): end quietly instead of crashing.
  process.stdout.on('error', shutDown);
  process.on('SIGINT', shutDown);
  process.on('SIGTERM', shutDown);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`assistant-kit-mcp: ${message}\n`);
  process.exit(1);
});
