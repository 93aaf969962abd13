/** The process around a command, passed in so commands can be run and tested in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of standard input. */
  readStdin: () => Promise<string>;
  /** Whether stderr is a terminal (progress is shown only then). */
  stderrIsTTY: boolean;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: () => readAll(process.stdin),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
    env: process.env,
    now: () => new Date(),
  };
}
