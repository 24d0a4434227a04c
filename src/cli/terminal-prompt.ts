import { createInterface } from 'node:readline';

/**
 * Asks one question on the terminal. With `secret`, nothing typed is echoed (one-time codes,
 * passwords). Answers null when there is no terminal to ask.
 */
export async function promptLine(question: string, options: { secret?: boolean } = {}): Promise<string | null> {
  if (!process.stdin.isTTY) return null;
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (options.secret) {
    const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput.bind(rl);
    let prompted = false;
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
      if (!prompted) {
        prompted = true;
        write(s);
      } else if (s.includes('\n')) write('\n');
    };
  }
  try {
    return await new Promise<string>((resolve) => rl.question(question, resolve));
  } finally {
    rl.close();
  }
}
