import { useEffect, useState } from 'preact/hooks';
import { request, stringifyJson } from '../api/http';
import type { CollectionInfo } from '../api/types';
import { messageOf } from './hooks';
import { currentTexts, type QuantizationChoice, SETTING_SECTIONS, settingsPatch } from './settings';
import { ErrorText } from './widgets';

const KEEP: QuantizationChoice = { kind: 'keep', quantile: '', compression: 'x16', alwaysRam: '' };

/**
 * Updates a collection's HNSW, optimizer, quantization and strict-mode settings (`PATCH /collections/{c}`): the
 * fields start at the current values and only those changed are sent. The server's message goes to the field it
 * names (`hnsw_config.m: …`), else under the form.
 */
export function SettingsForm({ name, info, onSaved }: { name: string; info: CollectionInfo; onSaved: () => void }) {
  const before = currentTexts(info.config);
  const [texts, setTexts] = useState<Record<string, string>>(before);
  const [quantization, setQuantization] = useState<QuantizationChoice>(KEEP);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  // Read again after a save (or by another page): the fields start over at the new values, the notice stays.
  const current = stringifyJson(before);
  useEffect(() => setTexts(before), [current]);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setNotice(undefined);
    const { body, errors: syntax } = settingsPatch(before, texts, quantization);
    if (Object.keys(syntax).length > 0) return setErrors(syntax);
    if (Object.keys(body).length === 0) return setErrors({ form: 'Nothing changed.' });
    setErrors({});
    setBusy(true);
    try {
      await request('PATCH', `/collections/${encodeURIComponent(name)}`, body);
      setNotice(`Updated: ${Object.keys(body).join(', ')}.`);
      setQuantization(KEEP);
      onSaved();
    } catch (failure) {
      const message = messageOf(failure);
      const field = Object.keys(texts).find((key) => message.includes(`${key}:`) || message.includes(`${key} `));
      setErrors({ [field ?? 'form']: message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" data-testid="settings-form" onSubmit={(event) => void submit(event)} novalidate>
      <h3>Update settings</h3>
      <p class="muted">Fields start at the current values; only the ones you change are sent.</p>
      <div class="grid">
        {SETTING_SECTIONS.map((section) => (
          <fieldset key={section.section}>
            <legend>{section.title}</legend>
            {section.fields.map((field) => {
              const key = `${section.section}.${field.key}`;
              return (
                <label class="field" key={key}>
                  <span>{field.key}</span>
                  {field.type === 'bool' ? (
                    <select
                      name={key}
                      value={texts[key]}
                      onChange={(e) => setTexts({ ...texts, [key]: e.currentTarget.value })}
                    >
                      <option value="">not set</option>
                      <option value="true">true</option>
                      <option value="false">false</option>
                    </select>
                  ) : (
                    <input
                      name={key}
                      inputMode={field.type === 'int' ? 'numeric' : 'decimal'}
                      value={texts[key]}
                      aria-invalid={Boolean(errors[key])}
                      onInput={(e) => setTexts({ ...texts, [key]: e.currentTarget.value })}
                    />
                  )}
                  {errors[key] ? (
                    <span class="field-error" role="alert" data-testid={`error-${key}`}>
                      {errors[key]}
                    </span>
                  ) : null}
                </label>
              );
            })}
          </fieldset>
        ))}
        <fieldset>
          <legend>Quantization</legend>
          <label class="field">
            <span>Method</span>
            <select
              name="quantization"
              value={quantization.kind}
              onChange={(e) =>
                setQuantization({ ...quantization, kind: e.currentTarget.value as QuantizationChoice['kind'] })
              }
            >
              <option value="keep">keep as it is</option>
              <option value="Disabled">none (remove)</option>
              <option value="scalar">scalar (int8)</option>
              <option value="product">product</option>
              <option value="binary">binary</option>
            </select>
          </label>
          {quantization.kind === 'scalar' ? (
            <label class="field">
              <span>quantile (0.5 to 1)</span>
              <input
                name="quantization.quantile"
                value={quantization.quantile}
                onInput={(e) => setQuantization({ ...quantization, quantile: e.currentTarget.value })}
              />
              {errors['quantization.quantile'] ? (
                <span class="field-error" role="alert">
                  {errors['quantization.quantile']}
                </span>
              ) : null}
            </label>
          ) : null}
          {quantization.kind === 'product' ? (
            <label class="field">
              <span>compression</span>
              <select
                name="quantization.compression"
                value={quantization.compression}
                onChange={(e) => setQuantization({ ...quantization, compression: e.currentTarget.value })}
              >
                {['x4', 'x8', 'x16', 'x32', 'x64'].map((x) => (
                  <option key={x}>{x}</option>
                ))}
              </select>
            </label>
          ) : null}
          {['scalar', 'product', 'binary'].includes(quantization.kind) ? (
            <label class="field">
              <span>always_ram</span>
              <select
                name="quantization.always_ram"
                value={quantization.alwaysRam}
                onChange={(e) => setQuantization({ ...quantization, alwaysRam: e.currentTarget.value as '' })}
              >
                <option value="">not set</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            </label>
          ) : null}
        </fieldset>
      </div>
      <ErrorText message={errors.form} testId="settings-error" />
      {notice ? (
        <p class="notice" role="status" data-testid="settings-notice">
          {notice}
        </p>
      ) : null}
      <button type="submit" class="primary" disabled={busy}>
        Update collection
      </button>
    </form>
  );
}
