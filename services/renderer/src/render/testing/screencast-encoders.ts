import { readFileSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Live ffmpeg processes this test process started for screencasts (their output lies in a
 * renderer-screencast-* folder). Other test files record screencasts at the same time: only our children count.
 */
export function screencastEncoders(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const [state, ppid] = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      const ours = Number(ppid) === process.pid;
      if (ours && cmdline.startsWith('ffmpeg') && cmdline.includes('renderer-screencast-') && state !== 'Z') pids.push(Number(entry));
    } catch {
      // exited while listing
    }
  }
  return pids;
}

/** The folder an encoder writes its video into (the last argument of its command line). */
export function encoderFolder(pid: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  return dirname(args.at(-1)!);
}
