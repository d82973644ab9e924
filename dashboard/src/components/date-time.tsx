import { formatDate } from '../money';

/**
 * A date and time as lists show it: on one line (`.datetime`), so a longer time of day never
 * wraps a row taller, and marked `data-dynamic`, so screenshots mask what changes with every run.
 */
export function DateTime({ value }: { value: string | null | undefined }) {
  return (
    <span className="datetime" data-dynamic>
      {formatDate(value)}
    </span>
  );
}
