import { useState } from 'preact/hooks';
import type { Json } from '../api/types';

/** Parses the editor's text: empty is "no filter"; otherwise a JSON object, or an error to show. */
export function parseFilter(text: string): { filter?: Json; error?: string } {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as Json;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { error: 'A filter is a JSON object, e.g. {"must": [{"key": "city", "match": {"value": "Berlin"}}]}' };
    }
    return { filter: value };
  } catch (error) {
    return { error: `Invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

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
