/** The demo's readable output: a section per way of working, then who did what and what the hub answered. */
export class Transcript {
  constructor(private readonly write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)) {}

  section(title: string): void {
    this.write('');
    this.write(`== ${title}`);
  }

  /** One action: `who` did `what`, and the hub answered `answer`. */
  act(who: string, what: string, answer: string): void {
    this.write(`${who.padEnd(8)} ${what}`);
    this.write(`${''.padEnd(8)}   hub: ${answer}`);
  }

  note(text: string): void {
    this.write(text);
  }
}

/** A text shown in the transcript: quoted, and cut short when long. */
export const quote = (text: string, max = 60): string => `"${text.length > max ? `${text.slice(0, max - 1)}…` : text}"`;
