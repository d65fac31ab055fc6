// Typed-array views over a growable linear memory. A view is rebuilt whenever memory.buffer changes
// (growth detaches the old ArrayBuffer), so callers must take views after any call that may grow memory.

export class MemoryViews {
  private buffer: ArrayBuffer | undefined;
  private u8View = new Uint8Array(0);
  private u32View = new Uint32Array(0);
  private i32View = new Int32Array(0);
  private f32View = new Float32Array(0);

  constructor(private readonly memory: WebAssembly.Memory) {}

  private refresh(): void {
    const buf = this.memory.buffer;
    if (buf !== this.buffer) {
      this.buffer = buf;
      this.u8View = new Uint8Array(buf);
      this.u32View = new Uint32Array(buf);
      this.i32View = new Int32Array(buf);
      this.f32View = new Float32Array(buf);
    }
  }

  get u8(): Uint8Array {
    this.refresh();
    return this.u8View;
  }
  get u32(): Uint32Array {
    this.refresh();
    return this.u32View;
  }
  get i32(): Int32Array {
    this.refresh();
    return this.i32View;
  }
  get f32(): Float32Array {
    this.refresh();
    return this.f32View;
  }

  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /** Grows memory so that at least `bytes` bytes exist. */
  ensure(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes <= have) return;
    const pages = Math.ceil((bytes - have) / 65536);
    try {
      this.memory.grow(pages);
    } catch (e) {
      throw new Error(`engine: cannot grow WebAssembly memory to ${bytes} bytes: ${(e as Error).message}`);
    }
  }
}
