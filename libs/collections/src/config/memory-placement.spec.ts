import { payloadsOnDisk, quantizedAlwaysInMemory, vectorsOnDisk } from './memory-placement';

describe('vectorsOnDisk', () => {
  it('should follow on_disk when memory is unset, and memory when set', () => {
    expect(vectorsOnDisk({})).toBe(false);
    expect(vectorsOnDisk({ onDisk: true })).toBe(true);
    expect(vectorsOnDisk({ memory: 'Cold' })).toBe(true);
    expect(vectorsOnDisk({ onDisk: true, memory: 'Cached' })).toBe(false);
    expect(vectorsOnDisk({ onDisk: false, memory: 'Cold' })).toBe(true);
  });
});

describe('payloadsOnDisk', () => {
  it('should follow on_disk_payload when payload.memory is unset, and memory when set', () => {
    expect(payloadsOnDisk({ onDiskPayload: true })).toBe(true);
    expect(payloadsOnDisk({ onDiskPayload: false, payload: {} })).toBe(false);
    expect(payloadsOnDisk({ onDiskPayload: true, payload: { memory: 'Cached' } })).toBe(false);
    expect(payloadsOnDisk({ onDiskPayload: false, payload: { memory: 'Cold' } })).toBe(true);
  });
});

describe('quantizedAlwaysInMemory', () => {
  it('should read pinned as always_ram, and always_ram when memory is unset', () => {
    expect(quantizedAlwaysInMemory({})).toBeUndefined();
    expect(quantizedAlwaysInMemory({ alwaysRam: true })).toBe(true);
    expect(quantizedAlwaysInMemory({ alwaysRam: true, memory: 'Cached' })).toBe(false);
    expect(quantizedAlwaysInMemory({ memory: 'Pinned' })).toBe(true);
  });
});
