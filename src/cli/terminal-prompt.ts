import { createInterface } from 'node:readline';

/** The question on the terminal now; the next one waits for its answer. */
let asking: Promise<unknown> = Promise.resolve();

/**
 * Asks one question on the terminal. With `secret`, nothing typed is echoed (one-time codes,
 * passwords). Answers null when there is no terminal to ask. Questions from concurrent runs (a
 * batch) are asked one at a time, in the order they came; nothing else waits for them.
 */
export function promptLine(question: string, options: { secret?: boolean } = {}): Promise<string | null> {
  const answer = asking.then(() => askNow(question, options));
  asking = answer.catch(() => undefined);
  return answer;
}

async function askNow(question: string, options: { secret?: boolean }): Promise<string | null> {
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
