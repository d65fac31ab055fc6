import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { stringifyJson } from '../api/http';

/** JSON as indented text. Always a text node: nothing a user stored is ever parsed as HTML. */
export function JsonView({ value, testId }: { value: unknown; testId?: string }) {
  return (
    <pre class="json" data-testid={testId}>
      {value === undefined ? '—' : stringifyJson(value, 2)}
    </pre>
  );
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
