import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Closes the descriptor of a file that was never closed explicitly once nothing can read it. */
const unreachable = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed by process teardown
  }
});

/**
 * A read-only file of an immutable segment (its vectors or payloads), read with positioned reads, so
 * its contents stay in the OS page cache instead of the heap. The file may be unlinked while open.
 */
export class SegmentFile {
  private closed = false;

  private constructor(
    private readonly fd: number,
    readonly path: string,
    readonly byteLength: number,
  ) {
    unreachable.register(this, fd, this);
  }

  static open(filePath: string): SegmentFile {
    const fd = openSync(filePath, 'r');
    return new SegmentFile(fd, filePath, fstatSync(fd).size);
  }

  /**
   * Closes the descriptor. Reads afterwards fail with an error rather than touching a descriptor
   * number the process may have reused for another file.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    unreachable.unregister(this);
    closeSync(this.fd);
  }

  /** `length` bytes at `position`, into `into` (at `at`) when given. */
  read(position: number, length: number, into: Uint8Array = new Uint8Array(length), at = 0): Uint8Array {
    if (this.closed) throw new Error(`${this.path}: read after close (its segment was replaced or its shard closed)`);
    if (position < 0 || position + length > this.byteLength) {
      throw new Error(
        `${this.path}: read of ${length} bytes at ${position} is past the end (${this.byteLength} bytes)`,
      );
    }
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, into, at + done, length - done, position + done);
      if (n === 0) throw new Error(`${this.path}: unexpected end of file at ${position + done}`);
      done += n;
    }
    return into;
  }

  /**
   * Fixed-size records `rows` (in the given order) of a table starting at `base`, back to back.
   * Neighbouring rows are fetched with one read.
   */
  readRows(base: number, rowBytes: number, rows: ArrayLike<number>): Uint8Array {
    const n = rows.length;
    const out = new Uint8Array(n * rowBytes);
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => rows[a] - rows[b]);
    let i = 0;
    while (i < n) {
      // a run of consecutive rows becomes one read
      let j = i + 1;
      while (j < n && rows[order[j]] === rows[order[j - 1]] + 1) j++;
      const first = rows[order[i]];
      const count = rows[order[j - 1]] - first + 1;
      if (count === j - i && isIdentity(order, i, j)) {
        this.read(base + first * rowBytes, count * rowBytes, out, i * rowBytes);
      } else {
        const run = this.read(base + first * rowBytes, count * rowBytes);
        for (let r = i; r < j; r++)
          out.set(
            run.subarray((rows[order[r]] - first) * rowBytes, (rows[order[r]] - first + 1) * rowBytes),
            order[r] * rowBytes,
          );
      }
      i = j;
    }
    return out;
  }
}

/** Whether order[i..j) is i, i+1, ... (rows asked for already in file order). */
function isIdentity(order: number[], i: number, j: number): boolean {
  for (let r = i; r < j; r++) if (order[r] !== r) return false;
  return true;
}
