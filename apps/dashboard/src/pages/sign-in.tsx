import { useState } from 'preact/hooks';
import { signIn, useApiKey } from '../api/session';
import { messageOf } from '../ui/hooks';
import { ErrorText, Field } from '../ui/widgets';

/** Email and password through `POST /api/auth/login`, or an API key. */
export function SignInPage({ notice }: { notice?: string }) {
  const [mode, setMode] = useState<'password' | 'key'>('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (mode === 'password') await signIn(email.trim(), password);
      else await useApiKey(key.trim());
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>vectorstore</h1>
      {notice ? (
        <p class="notice" data-testid="sign-in-notice">
          {notice}
        </p>
      ) : null}
      <div class="tabs" role="tablist">
        <button role="tab" aria-selected={mode === 'password'} onClick={() => setMode('password')}>
          Email and password
        </button>
        <button role="tab" aria-selected={mode === 'key'} data-testid="api-key-tab" onClick={() => setMode('key')}>
          API key
        </button>
      </div>
      <form onSubmit={(event) => void submit(event)} data-testid="sign-in-form">
        {mode === 'password' ? (
          <>
            <Field label="Email" name="email">
              <input
                name="email"
                type="email"
                autocomplete="username"
                required
                value={email}
                onInput={(e) => setEmail(e.currentTarget.value)}
              />
            </Field>
            <Field label="Password" name="password">
              <input
                name="password"
                type="password"
                autocomplete="current-password"
                required
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </Field>
          </>
        ) : (
          <Field label="API key" name="api-key">
            <input
              name="api-key"
              type="password"
              autocomplete="off"
              required
              value={key}
              onInput={(e) => setKey(e.currentTarget.value)}
            />
          </Field>
        )}
        <ErrorText message={error} testId="sign-in-error" />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
