import { useCallback, useEffect, useState } from 'preact/hooks';
import { onReachability } from '../api/http';
import { onSession, sessionState, type SessionState } from '../api/session';

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` when `key` changes, on `reload()`, and again when an unreachable server answers again. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => onReachability((up) => up && reload()), [reload]);
  useEffect(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error: messageOf(error), loading: false }),
    );
    return () => {
      live = false;
    };
    // `load` is a fresh closure each render; `key` names what it loads.
  }, [key, tick]);
  return { ...state, reload };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The session as it is now, kept current (a role changed, grants edited, signed out). */
export function useSession(): SessionState {
  const [session, setSession] = useState<SessionState>(sessionState());
  useEffect(() => onSession(setSession), []);
  return session;
}
