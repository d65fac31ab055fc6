import { useState } from 'preact/hooks';
import { parseFilter } from './parse';

/** A JSON filter editor that checks the syntax as you type; the server checks the meaning. */
export function FilterEditor(props: { value: string; onChange: (text: string) => void; serverError?: string }) {
  const [touched, setTouched] = useState(false);
  const { error } = parseFilter(props.value);
  return (
    <label class="field filter-editor">
      <span>Filter (JSON, Qdrant syntax; empty for none)</span>
      <textarea
        name="filter"
        rows={4}
        spellcheck={false}
        value={props.value}
        placeholder='{"must": [{"key": "city", "match": {"value": "Berlin"}}]}'
        aria-invalid={Boolean(error ?? props.serverError)}
        onInput={(e) => {
          setTouched(true);
          props.onChange(e.currentTarget.value);
        }}
      />
      {touched && error ? (
        <span class="field-error" role="alert" data-testid="error-filter">
          {error}
        </span>
      ) : props.serverError ? (
        <span class="field-error" role="alert" data-testid="error-filter">
          {props.serverError}
        </span>
      ) : null}
    </label>
  );
}
