import type { Json } from '../api/types';

/**
 * The collection settings the update form offers (`PATCH /collections/{c}`), by section. Each field is typed so that
 * the form can send a number or a boolean; whether a value is allowed is the server's to say.
 */
export interface SettingField {
  key: string;
  type: 'int' | 'float' | 'bool';
}

export interface SettingSection {
  /** The body's key: `hnsw_config`, `optimizers_config`, `strict_mode_config`. */
  section: string;
  /** Where the current values are in the collection's info (`config.optimizer_config` for the optimizers). */
  current: string;
  title: string;
  fields: SettingField[];
}

const ints = (...keys: string[]): SettingField[] => keys.map((key) => ({ key, type: 'int' }));
const bools = (...keys: string[]): SettingField[] => keys.map((key) => ({ key, type: 'bool' }));

export const SETTING_SECTIONS: readonly SettingSection[] = [
  {
    section: 'hnsw_config',
    current: 'hnsw_config',
    title: 'HNSW index',
    fields: [
      ...ints('m', 'ef_construct', 'full_scan_threshold', 'max_indexing_threads', 'payload_m'),
      ...bools('on_disk'),
    ],
  },
  {
    section: 'optimizers_config',
    current: 'optimizer_config',
    title: 'Optimizers',
    fields: [
      { key: 'deleted_threshold', type: 'float' },
      ...ints(
        'vacuum_min_vector_number',
        'default_segment_number',
        'max_segment_size',
        'memmap_threshold',
        'indexing_threshold',
        'flush_interval_sec',
      ),
    ],
  },
  {
    section: 'strict_mode_config',
    current: 'strict_mode_config',
    title: 'Strict mode',
    fields: [
      ...bools('enabled'),
      ...ints('max_query_limit', 'max_timeout', 'search_max_hnsw_ef', 'read_rate_limit', 'write_rate_limit'),
      ...bools('unindexed_filtering_retrieve', 'unindexed_filtering_update', 'search_allow_exact'),
      ...ints('max_points_count', 'upsert_max_batchsize', 'filter_max_conditions'),
    ],
  },
];

/** Quantization as the form offers it: keep, remove, or one of the methods with its main options. */
export interface QuantizationChoice {
  kind: 'keep' | 'Disabled' | 'scalar' | 'product' | 'binary';
  quantile: string;
  compression: string;
  alwaysRam: 'true' | 'false' | '';
}

/** The form's text for a current value: numbers and booleans as typed, nothing for absent. */
export function textOf(value: Json | undefined): string {
  return value === undefined || value === null ? '' : String(value);
}

/** Field texts keyed `section.key`, from the collection's config. */
export function currentTexts(config: Record<string, Json | undefined>): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const section of SETTING_SECTIONS) {
    const values = (config[section.current] ?? {}) as Record<string, Json>;
    for (const field of section.fields) texts[`${section.section}.${field.key}`] = textOf(values?.[field.key]);
  }
  return texts;
}

/**
 * The PATCH body of what changed between `before` and `after` (field texts), or the fields whose text is not a
 * number or boolean. A cleared field is left out (the API has no "unset"); nothing changed gives an empty body.
 */
export function settingsPatch(
  before: Record<string, string>,
  after: Record<string, string>,
  quantization: QuantizationChoice,
): { body: Record<string, Json>; errors: Record<string, string> } {
  const body: Record<string, Record<string, Json>> = {};
  const errors: Record<string, string> = {};
  for (const section of SETTING_SECTIONS) {
    for (const field of section.fields) {
      const name = `${section.section}.${field.key}`;
      const text = (after[name] ?? '').trim();
      if (text === (before[name] ?? '').trim() || text === '') continue;
      let value: Json;
      if (field.type === 'bool') {
        if (text !== 'true' && text !== 'false') {
          errors[name] = 'true or false';
          continue;
        }
        value = text === 'true';
      } else {
        value = Number(text);
        if (!Number.isFinite(value) || (field.type === 'int' && !/^\d+$/.test(text))) {
          errors[name] = field.type === 'int' ? 'A whole number, 0 or more' : 'A number';
          continue;
        }
      }
      (body[section.section] ??= {})[field.key] = value;
    }
  }
  const patch: Record<string, Json> = { ...body };
  const q = quantizationBody(quantization, errors);
  if (q !== undefined) patch.quantization_config = q;
  return { body: patch, errors };
}

function quantizationBody(choice: QuantizationChoice, errors: Record<string, string>): Json | undefined {
  if (choice.kind === 'keep') return undefined;
  if (choice.kind === 'Disabled') return 'Disabled';
  const options: Record<string, Json> = {};
  if (choice.alwaysRam !== '') options.always_ram = choice.alwaysRam === 'true';
  if (choice.kind === 'scalar') {
    options.type = 'int8';
    if (choice.quantile.trim() !== '') {
      const quantile = Number(choice.quantile);
      if (!Number.isFinite(quantile)) errors['quantization.quantile'] = 'A number';
      else options.quantile = quantile;
    }
  }
  if (choice.kind === 'product') options.compression = choice.compression;
  return { [choice.kind]: options };
}
