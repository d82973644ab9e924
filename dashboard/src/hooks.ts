import { useMutation } from '@tanstack/react-query';
import { useCallback, type FormEvent } from 'react';
import { asApiError, type ApiError } from './api/client';
import type { PathPrefix } from './api/queries';

/** A request a person starts (a form, a button): `busy` while it runs, its error kept for the form to show. */
export interface Action<A extends unknown[], T> {
  run: (...args: A) => Promise<T | undefined>;
  busy: boolean;
  error: ApiError | undefined;
  reset: () => void;
}

/**
 * A TanStack mutation with the shape the forms use. `invalidates` names the API paths the change
 * touches: their cached reads are fetched again before `run` resolves.
 */
export function useAction<A extends unknown[], T>(
  perform: (...args: A) => Promise<T>,
  options: { invalidates?: readonly PathPrefix[] } = {},
): Action<A, T> {
  const mutation = useMutation<T, ApiError, A>({
    mutationFn: async (args) => {
      try {
        return await perform(...args);
      } catch (error) {
        throw asApiError(error);
      }
    },
    meta: { invalidates: options.invalidates },
  });
  const { mutateAsync, reset } = mutation;
  const run = useCallback(
    async (...args: A) => {
      try {
        return await mutateAsync(args);
      } catch {
        return undefined;
      }
    },
    [mutateAsync],
  );
  return { run, busy: mutation.isPending, error: mutation.error ?? undefined, reset };
}

/** A form's onSubmit that runs `run` (an Action's) in place of the browser's own submission. */
export function runOnSubmit(run: () => unknown): (event: FormEvent) => void {
  return (event) => {
    event.preventDefault();
    void run();
  };
}
