/**
 * Many holders of the shared side at once, or one of the exclusive side. Grants go in arrival
 * order, so a waiting exclusive task is not starved by shared tasks arriving after it.
 */
export class ReadWriteLock {
  private sharedHolders = 0;
  private exclusiveHeld = false;
  private readonly waiting: Array<{ exclusive: boolean; grant: () => void }> = [];

  shared<T>(task: () => Promise<T>): Promise<T> {
    return this.run(false, task);
  }

  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.run(true, task);
  }

  private async run<T>(exclusive: boolean, task: () => Promise<T>): Promise<T> {
    await this.acquire(exclusive);
    try {
      return await task();
    } finally {
      if (exclusive) this.exclusiveHeld = false;
      else this.sharedHolders--;
      this.grantWaiting();
    }
  }

  private acquire(exclusive: boolean): Promise<void> {
    if (this.waiting.length === 0 && this.free(exclusive)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ exclusive, grant: () => (this.take(exclusive), resolve()) }));
  }

  private free(exclusive: boolean): boolean {
    return !this.exclusiveHeld && (!exclusive || this.sharedHolders === 0);
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusiveHeld = true;
    else this.sharedHolders++;
  }

  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.free(this.waiting[0].exclusive)) {
      const next = this.waiting.shift()!;
      next.grant();
      if (next.exclusive) return;
    }
  }
}
