import { currentTexts, settingsPatch, type QuantizationChoice } from './settings';
import { ticks } from './ticks';

const KEEP: QuantizationChoice = { kind: 'keep', quantile: '', compression: 'x16', alwaysRam: '' };

describe('settings', () => {
  const before = currentTexts({
    hnsw_config: { m: 16, ef_construct: 100, on_disk: false },
    optimizer_config: { deleted_threshold: 0.2, indexing_threshold: 10000 },
    strict_mode_config: null,
  });

  it('should start from the current values, optimizers read from optimizer_config', () => {
    expect(before['hnsw_config.m']).toBe('16');
    expect(before['hnsw_config.on_disk']).toBe('false');
    expect(before['optimizers_config.deleted_threshold']).toBe('0.2');
    expect(before['strict_mode_config.enabled']).toBe('');
  });

  it('should send only what changed, typed, and nothing for a cleared field', () => {
    const after = {
      ...before,
      'hnsw_config.m': '32',
      'hnsw_config.on_disk': 'true',
      'hnsw_config.ef_construct': '',
      'optimizers_config.deleted_threshold': '0.5',
    };
    expect(settingsPatch(before, after, KEEP)).toEqual({
      body: { hnsw_config: { m: 32, on_disk: true }, optimizers_config: { deleted_threshold: 0.5 } },
      errors: {},
    });
    expect(settingsPatch(before, before, KEEP)).toEqual({ body: {}, errors: {} });
  });

  it('should build each quantization choice', () => {
    const q = (choice: Partial<QuantizationChoice>): unknown =>
      settingsPatch(before, before, { ...KEEP, ...choice }).body.quantization_config;
    expect(q({ kind: 'Disabled' })).toBe('Disabled');
    expect(q({ kind: 'scalar', quantile: '0.95', alwaysRam: 'true' })).toEqual({
      scalar: { type: 'int8', quantile: 0.95, always_ram: true },
    });
    expect(q({ kind: 'product', compression: 'x8' })).toEqual({ product: { compression: 'x8' } });
    expect(q({ kind: 'binary' })).toEqual({ binary: {} });
  });

  it('should name the fields whose text is not a number or a boolean', () => {
    const after = { ...before, 'hnsw_config.m': '1.5', 'optimizers_config.deleted_threshold': 'x' };
    expect(settingsPatch(before, after, { ...KEEP, kind: 'scalar', quantile: 'high' }).errors).toEqual({
      'hnsw_config.m': 'A whole number, 0 or more',
      'optimizers_config.deleted_threshold': 'A number',
      'quantization.quantile': 'A number',
    });
  });
});

describe('chart ticks', () => {
  it('should give round steps from 0 to at least the top', () => {
    expect(ticks(1)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(ticks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(ticks(130)).toEqual([0, 50, 100, 150]);
    expect(ticks(-1, 4, -5)).toEqual([-5, -4, -3, -2, -1]);
  });
});
