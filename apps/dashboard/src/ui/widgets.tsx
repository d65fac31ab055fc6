import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Json } from '../api/types';

/** JSON as indented text. Always a text node: nothing a user stored is ever parsed as HTML. */
export function JsonView({ value, testId }: { value: unknown; testId?: string }) {
  return (
    <pre class="json" data-testid={testId}>
      {value === undefined ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** The first few components of a vector (or of each named vector), with its length. */
export function vectorSummary(vector: Json | undefined, shown = 4): string {
  if (vector === undefined || vector === null) return '—';
  if (Array.isArray(vector)) {
    if (vector.length > 0 && Array.isArray(vector[0])) return `[${vector.length} vectors]`;
    const head = vector.slice(0, shown).map((x) => (typeof x === 'number' ? Number(x.toFixed(4)) : x));
    return `[${head.join(', ')}${vector.length > shown ? ', …' : ''}] (${vector.length} dims)`;
  }
  if (typeof vector === 'object') {
    return Object.entries(vector)
      .map(([name, value]) =>
        value && typeof value === 'object' && !Array.isArray(value) && 'indices' in value
          ? `${name}: sparse (${Array.isArray(value.indices) ? value.indices.length : 0} values)`
          : `${name}: ${vectorSummary(value, shown)}`,
      )
      .join('\n');
  }
  return String(vector);
}

export function ErrorText({ message, testId }: { message?: string; testId?: string }) {
  if (!message) return null;
  return (
    <p class="error" role="alert" data-testid={testId}>
      {message}
    </p>
  );
}

export function Field(props: { label: string; error?: string; name: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      {props.children}
      {props.error ? (
        <span class="field-error" role="alert" data-testid={`error-${props.name}`}>
          {props.error}
        </span>
      ) : null}
    </label>
  );
}

/** A delete button that asks once more in place (no `confirm()` dialog). */
export function ConfirmButton(props: { label: string; onConfirm: () => void; testId?: string }) {
  const [armed, setArmed] = useState(false);
  return armed ? (
    <span class="confirm">
      <button class="danger" data-testid={props.testId && `${props.testId}-confirm`} onClick={props.onConfirm}>
        Really {props.label.toLowerCase()}
      </button>
      <button onClick={() => setArmed(false)}>Cancel</button>
    </span>
  ) : (
    <button class="danger-outline" data-testid={props.testId} onClick={() => setArmed(true)}>
      {props.label}
    </button>
  );
}

export function StatusDot({ status }: { status: string }) {
  return (
    <span class={`dot dot-${/^(green|yellow|grey|red)$/.test(status) ? status : 'grey'}`} title={status}>
      {status}
    </span>
  );
}

/** A small line chart of the last values. */
export function Sparkline({ values, label, unit }: { values: number[]; label: string; unit: string }) {
  const width = 240;
  const height = 48;
  const max = Math.max(1e-9, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(height - (v / max) * (height - 4) - 2).toFixed(1)}`);
  const last = values.length > 0 ? values[values.length - 1] : 0;
  return (
    <figure class="chart" data-testid={`chart-${label}`}>
      <figcaption>
        {label}: <strong>{last.toFixed(last < 10 ? 2 : 0)}</strong> {unit}
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={label}>
        <polyline points={points.join(' ')} fill="none" stroke="currentColor" stroke-width="1.5" />
      </svg>
    </figure>
  );
}

/**
 * Where a server validation message belongs: the first field whose API name it mentions (`vectors.size: …`,
 * `collection_name: …`), else the form as a whole.
 */
export function fieldOfMessage(message: string, fields: Record<string, string[]>): string | undefined {
  for (const [field, names] of Object.entries(fields)) {
    if (names.some((name) => message.includes(name))) return field;
  }
  return undefined;
}
