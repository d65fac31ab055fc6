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
