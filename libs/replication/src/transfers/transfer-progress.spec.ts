import { TransferProgress } from './transfer-progress';

/** A clock the test moves by hand (ms). */
const clock = (start = 50_000) => {
  const state = { now: start };
  return { now: () => state.now, advance: (ms: number) => (state.now += ms) };
};

describe(TransferProgress.name, () => {
  it('starts proxifying, with the seconds spent in the stage to two decimals', () => {
    const time = clock();
    const progress = new TransferProgress(time.now);
    expect(progress.comment()).toBe('proxifying (0.00s)');
    time.advance(1234);
    expect(progress.comment()).toBe('proxifying (1.23s)');
    time.advance(1);
    expect(progress.comment()).toBe('proxifying (1.24s)');
  });

  it('counts the seconds from the start of the current stage', () => {
    const time = clock();
    const progress = new TransferProgress(time.now);
    time.advance(5000);
    progress.enter('transferring');
    expect(progress.comment()).toBe('transferring (0.00s)');
    time.advance(1200);
    expect(progress.comment()).toBe('transferring (1.20s)');
    progress.enter('applying queued updates');
    time.advance(70);
    expect(progress.comment()).toBe('applying queued updates (0.07s)');
  });

  it('shows records only once some are planned or copied', () => {
    const time = clock();
    const progress = new TransferProgress(time.now);
    progress.plan(0);
    expect(progress.comment()).toBe('proxifying (0.00s)');
    progress.plan(1000);
    progress.enter('transferring');
    expect(progress.comment()).toBe('transferring (0.00s) | Transferring records (0/1000)');
  });

  it('estimates the time left from the pace since the transfer started, as Qdrant words it', () => {
    const time = clock();
    const progress = new TransferProgress(time.now);
    time.advance(200); // proxifying: part of the elapsed time the pace is measured over
    progress.plan(1000);
    progress.enter('transferring');
    time.advance(1000);
    progress.add(300);
    expect(progress.transferred).toBe(300);
    // 1.2 s for 300 records: 700 more take 2.8 s.
    expect(progress.comment()).toBe('transferring (1.00s) | Transferring records (300/1000), ETA: 2.80s');
    time.advance(1800);
    progress.add(450);
    // 3 s for 750: 250 more take 1 s.
    expect(progress.comment()).toBe('transferring (2.80s) | Transferring records (750/1000), ETA: 1.00s');
  });

  it('gives no ETA before the first record or once all are copied', () => {
    const time = clock();
    const progress = new TransferProgress(time.now);
    progress.plan(10);
    time.advance(500);
    expect(progress.comment()).toBe('proxifying (0.50s) | Transferring records (0/10)');
    progress.add(10);
    expect(progress.comment()).toBe('proxifying (0.50s) | Transferring records (10/10)');
  });

  it('raises the total when more records are copied than planned (points written meanwhile)', () => {
    const time = clock();
    const progress = new TransferProgress(time.now);
    progress.add(3);
    expect(progress.comment()).toBe('proxifying (0.00s) | Transferring records (3/3)');
    progress.plan(5);
    progress.add(4);
    expect(progress.transferred).toBe(7);
    expect(progress.comment()).toBe('proxifying (0.00s) | Transferring records (7/7)');
  });

  it('ends with the note, when the method ran as another one', () => {
    const time = clock();
    const progress = new TransferProgress(time.now);
    progress.note = 'wal_delta: streamed';
    expect(progress.comment()).toBe('proxifying (0.00s) | wal_delta: streamed');
    progress.plan(4);
    progress.add(1);
    time.advance(1000);
    expect(progress.comment()).toBe(
      'proxifying (1.00s) | Transferring records (1/4), ETA: 3.00s | wal_delta: streamed',
    );
  });

  it('reads the real clock by default', () => {
    const progress = new TransferProgress();
    expect(progress.comment()).toMatch(/^proxifying \(\d+\.\d{2}s\)$/);
  });
});
