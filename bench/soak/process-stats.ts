import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** Resident memory of a process in bytes (Linux /proc; NaN elsewhere). */
export function residentBytes(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Open file descriptors of a process: sockets, segment files, the WAL, pipes (Linux /proc; NaN elsewhere). */
export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

/** Bytes of the regular files under `dir`, recursively (files removed while it walks are skipped). */
export function directoryBytes(dir: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry);
    try {
      const stat = lstatSync(file);
      if (stat.isDirectory()) total += directoryBytes(file);
      else if (stat.isFile()) total += stat.size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

/** CPU seconds a process used so far, user and system, all threads (Linux /proc; NaN elsewhere). */
export function cpuSeconds(pid: number): number {
  try {
    // the fields after the command name, which is in parentheses and may hold spaces
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here; in clock ticks, 100 a second on Linux
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * How much of the time the threads of some processes were runnable they actually ran, over each interval between
 * two readings (Linux schedstat: run time and run-queue wait per thread). On a machine shared with other work this is
 * the share of the CPU the soak got: when other processes take the cores, waits grow and latencies with them, with no
 * change in the server. Threads are followed one by one, so builder threads that come and go count for the time seen.
 */
export class CpuShareMeter {
  private last = new Map<string, { runNs: number; waitNs: number }>();

  constructor(private readonly pids: readonly number[]) {
    this.read();
  }

  /** run / (run + wait) since the previous call (NaN without /proc or when nothing ran). */
  share(): number {
    const previous = this.last;
    let [run, wait] = [0, 0];
    for (const [thread, now] of this.read()) {
      const before = previous.get(thread) ?? { runNs: 0, waitNs: 0 };
      run += now.runNs - before.runNs;
      wait += now.waitNs - before.waitNs;
    }
    return run + wait > 0 ? run / (run + wait) : NaN;
  }

  private read(): Map<string, { runNs: number; waitNs: number }> {
    const readings = new Map<string, { runNs: number; waitNs: number }>();
    for (const pid of this.pids) {
      let tids: string[];
      try {
        tids = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      for (const tid of tids) {
        try {
          const [runNs, waitNs] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
          readings.set(`${pid}/${tid}`, { runNs, waitNs });
        } catch {
          // the thread ended between the listing and the read
        }
      }
    }
    this.last = readings;
    return readings;
  }
}
