import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api/client';

/** Data loaded from the API: `loading` while a request runs, `error` when it failed, `reload()` to fetch again. */
export interface Resource<T> {
  data?: T;
  error?: ApiError;
  loading: boolean;
  reload: () => void;
}

export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true, error: undefined }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error: asApiError(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

/** A request a person starts (a form, a button): `busy` while it runs, its error kept for the form to show. */
export interface Action<A extends unknown[], T> {
  run: (...args: A) => Promise<T | undefined>;
  busy: boolean;
  error: ApiError | undefined;
  reset: () => void;
}

export function useAction<A extends unknown[], T>(perform: (...args: A) => Promise<T>): Action<A, T> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const performRef = useRef(perform);
  performRef.current = perform;
  const run = useCallback(async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      return await performRef.current(...args);
    } catch (caught) {
      setError(asApiError(caught));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  const reset = useCallback(() => setError(undefined), []);
  return { run, busy, error, reset };
}

function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const failure = new ApiError(0, { message: error instanceof Error ? error.message : 'Something went wrong' });
  return failure;
}
