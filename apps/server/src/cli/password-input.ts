/**
 * Reads a password without putting it on the command line (where `ps` and shell history see it):
 * from a terminal with echo off (asked twice), or as the first line of piped stdin.
 */
export async function readPassword(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) return firstLine(await readAll(process.stdin));
  const [first, second] = await promptHidden([`${prompt}: `, 'Repeat it: ']);
  if (first !== second) throw new Error('the passwords differ');
  return first;
}

function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0] ?? '';
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks each question in turn with terminal echo off; answers typed ahead are kept, not lost. */
function promptHidden(questions: readonly string[]): Promise<string[]> {
  const stdin = process.stdin;
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  const answers: string[] = [];
  let current = '';
  process.stderr.write(questions[0]);
  return new Promise((resolve, reject) => {
    const finish = (error?: Error): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      if (error) reject(error);
      else resolve(answers);
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (char === '\u0003' || char === '\u0004') {
          process.stderr.write('\n');
          return finish(new Error('cancelled'));
        }
        if (char === '\r' || char === '\n') {
          process.stderr.write('\n');
          answers.push(current);
          current = '';
          if (answers.length === questions.length) return finish();
          process.stderr.write(questions[answers.length]);
        } else {
          current = char === '\u007f' || char === '\b' ? current.slice(0, -1) : current + char;
        }
      }
    };
    stdin.on('data', onData);
  });
}
