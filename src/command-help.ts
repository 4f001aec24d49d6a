// Every operator command answers --help (issue 16): what it does, how to call it, and nothing else
// happens — no data file is opened, no server started.

/** Prints `help` and exits 0 when the arguments ask for it (`--help` or `-h`); otherwise returns. */
export function answerHelp(help: string, args: readonly string[] = Bun.argv.slice(2)): void {
  if (!args.includes('--help') && !args.includes('-h')) return
  console.log(help.trim())
  process.exit(0)
}
