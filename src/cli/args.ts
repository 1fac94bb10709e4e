/** Parses `command --flag value --switch` into a command and a flag map. */
export function parseArgs(argv: string[]): { command: string | undefined; flags: Map<string, string | true> } {
  const [command, ...rest] = argv;
  const flags = new Map<string, string | true>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const next = rest[i + 1];
    if (next === undefined || next.startsWith('--')) flags.set(arg.slice(2), true);
    else {
      flags.set(arg.slice(2), next);
      i++;
    }
  }
  return { command, flags };
}

export function required(flags: Map<string, string | true>, name: string): string {
  const v = flags.get(name);
  if (typeof v !== 'string' || v === '') throw new Error(`--${name} is required`);
  return v;
}

export function optionalInt(flags: Map<string, string | true>, name: string): number | undefined {
  const v = flags.get(name);
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new Error(`--${name} must be a whole number`);
  return Number(v);
}
