import { encodeRecord, readFrameAt, RECORD_HEADER_BYTES, scanSegment, decodeRecords } from './wal-record';

const segmentOf = (firstOpNum: number, payloads: string[], padding = 0): Buffer =>
  Buffer.concat([...payloads.map((text, i) => encodeRecord(firstOpNum + i, Buffer.from(text))), Buffer.alloc(padding)]);

describe('scanSegment', () => {
  it('should accept every record and stop cleanly at zero padding', () => {
    const bytes = segmentOf(7, ['a', '', 'ccc'], 100);

    const scan = scanSegment(bytes, 7);

    expect(scan).toEqual({ records: 3, validBytes: bytes.length - 100, problem: undefined, garbageBytes: 0 });
  });

  it('should stop at a flipped data byte and count the bytes after it as garbage', () => {
    const bytes = segmentOf(1, ['first', 'second', 'third']);
    bytes[RECORD_HEADER_BYTES + 5 + RECORD_HEADER_BYTES + 2] ^= 0x40;

    const scan = scanSegment(bytes, 1);

    expect(scan.records).toBe(1);
    expect(scan.validBytes).toBe(RECORD_HEADER_BYTES + 5);
    expect(scan.problem).toMatch(/checksum/);
    expect(scan.garbageBytes).toBe(bytes.length - scan.validBytes);
  });

  it('should reject a record that is cut short', () => {
    const bytes = segmentOf(1, ['first', 'second']).subarray(0, RECORD_HEADER_BYTES * 2 + 5 + 3);

    expect(scanSegment(bytes, 1)).toMatchObject({ records: 1, problem: expect.stringMatching(/past the end/) });
  });

  it('should reject a valid record carrying the wrong op number', () => {
    expect(scanSegment(segmentOf(5, ['x']), 6)).toMatchObject({
      records: 0,
      problem: expect.stringMatching(/expected op 6/),
    });
  });

  it('should report non-zero bytes behind a zero header as a torn tail', () => {
    const bytes = segmentOf(1, ['ok'], 64);
    bytes[bytes.length - 1] = 9;

    expect(scanSegment(bytes, 1)).toMatchObject({
      records: 1,
      garbageBytes: 64,
      problem: expect.stringMatching(/non-zero/),
    });
  });
});

describe('readFrameAt', () => {
  it('should treat a short all-zero tail as the end', () => {
    expect(readFrameAt(new Uint8Array(5), 0, 1)).toEqual({ kind: 'end' });
  });
});

describe('decodeRecords', () => {
  it('should yield copies of the data with consecutive op numbers', () => {
    const bytes = segmentOf(41, ['a', 'bb']);

    const records = [...decodeRecords(bytes, 41)];

    expect(records.map((r) => [r.opNum, Buffer.from(r.data).toString()])).toEqual([
      [41, 'a'],
      [42, 'bb'],
    ]);
    expect(records[0].data.buffer).not.toBe(bytes.buffer);
  });
});
