import {
  useId,
  useState,
  type ButtonHTMLAttributes,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
} from 'react';
import type { ErrorBody } from './api/client';

/**
 * A failed request as the pages see it: the service's error body (an ApiError, thrown by the client,
 * carries one; status 0 when the service was not reached).
 */
export type Failure = ErrorBody | null | undefined;

/** Validation messages by field name (`errors: [{ field, messages }]`). */
export function errorFields(error: Failure): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const entry of error?.errors ?? []) fields[entry.field] = [...(fields[entry.field] ?? []), ...entry.messages];
  return fields;
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return (
    <span className="spinner" role="status">
      <span className="visually-hidden">{label}</span>
    </span>
  );
}

type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'link';

/** A button that shows a spinner and refuses clicks while its request runs. */
export function Button({
  busy = false,
  variant = 'primary',
  children,
  disabled,
  className,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy?: boolean; variant?: ButtonVariant }) {
  return (
    <button
      className={`button button-${variant}${className ? ` ${className}` : ''}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      type="button"
      {...rest}
    >
      {busy && <span className="spinner spinner-small" aria-hidden="true" />}
      {children}
    </button>
  );
}

/** A form's submit button, busy while its request runs, and Cancel where the form can be closed without submitting. */
export function FormActions({
  busy,
  onCancel,
  variant,
  children,
}: {
  busy: boolean;
  onCancel?: () => void;
  variant?: ButtonVariant;
  /** The submit button's words. */
  children: ReactNode;
}) {
  return (
    <div className="actions">
      <Button type="submit" variant={variant} busy={busy}>
        {children}
      </Button>
      {onCancel && (
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      )}
    </div>
  );
}

/** The messages the API gave for one field, or none. */
export function fieldError(error: Failure, ...fields: string[]): string | undefined {
  if (!error) return undefined;
  const all = errorFields(error);
  const messages = fields.flatMap((field) => all[field] ?? []);
  return messages.length ? messages.join('; ') : undefined;
}

interface FieldProps {
  label: string;
  error?: string;
  hint?: ReactNode;
}

/** What ties a control to its label, its hint and its error. */
interface ControlTies {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** The frame Field and SelectField share: the label, the control, its hint and its error, tied together for screen readers. */
function LabelledControl({
  label,
  error,
  hint,
  id,
  control,
}: FieldProps & { id?: string; control: (ties: ControlTies) => ReactNode }) {
  const generated = useId();
  const controlId = id ?? generated;
  const hintId = `${controlId}-hint`;
  const errorId = `${controlId}-error`;
  const describedBy = [hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={controlId}>{label}</label>
      {control({ id: controlId, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint && (
        <div className="field-hint" id={hintId}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={errorId}>
          {error}
        </div>
      )}
    </div>
  );
}

/** A labelled input with its hint and its error (from the API). */
export function Field({ label, error, hint, id, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <LabelledControl
      label={label}
      error={error}
      hint={hint}
      id={id}
      control={(ties) => <input {...ties} {...input} />}
    />
  );
}

/** A new password, under the service's rule (8 characters at least), offered to the browser's password manager to keep. */
export function NewPasswordField(props: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return <Field type="password" autoComplete="new-password" required minLength={8} {...props} />;
}

export function SelectField({
  label,
  error,
  hint,
  id,
  children,
  ...select
}: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <LabelledControl
      label={label}
      error={error}
      hint={hint}
      id={id}
      control={(ties) => (
        <select {...ties} {...select}>
          {children}
        </select>
      )}
    />
  );
}

/** A select's options, one a value, shown as the value or as `labels` name it. */
export function Options<V extends string>({ values, labels }: { values: readonly V[]; labels?: Record<V, string> }) {
  return (
    <>
      {values.map((value) => (
        <option key={value} value={value}>
          {labels ? labels[value] : value}
        </option>
      ))}
    </>
  );
}

/**
 * The error of a request that no field shows: the message when the API named no field this form
 * has, or a summary when it did (the fields show the details).
 */
export function FormError({ error, fields = [] }: { error: Failure; fields?: string[] }) {
  if (!error) return null;
  const all = errorFields(error);
  const shown = Object.keys(all).filter((field) => fields.includes(field));
  const others = Object.entries(all).filter(([field]) => !fields.includes(field));
  if (shown.length > 0 && others.length === 0) {
    return (
      <p className="form-error" role="alert">
        Please correct the highlighted {shown.length === 1 ? 'field' : 'fields'}.
      </p>
    );
  }
  return (
    <div className="form-error" role="alert">
      <p>{others.length ? 'The service refused this:' : error.message}</p>
      {others.length > 0 && (
        <ul>
          {others.map(([field, messages]) => (
            <li key={field}>
              <strong>{field}</strong>: {messages.join('; ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Why a button's request (one with no form around it, in a row) failed, beside the button. */
export function ActionError({ error }: { error: Failure }) {
  if (!error) return null;
  return (
    <span className="field-error" role="alert">
      {error.message}
    </span>
  );
}

/** A failed load, with a way to try again. */
export function LoadError({ error, retry }: { error: NonNullable<Failure>; retry: () => void }) {
  return (
    <div className="form-error" role="alert">
      <p>{error.message}</p>
      <Button variant="secondary" onClick={retry}>
        Try again
      </Button>
    </div>
  );
}

/** A record's page when the record could not be read: the page's heading, the failure with a way to try again, and `children`, the way back. */
export function PageLoadError({
  headingId,
  heading,
  error,
  retry,
  children,
}: {
  headingId: string;
  heading: string;
  error: NonNullable<Failure>;
  retry: () => void;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={headingId}>
      <h1 id={headingId}>{heading}</h1>
      <LoadError error={error} retry={retry} />
      <p>{children}</p>
    </section>
  );
}

/** What a page shows of a read besides its data: the failure, with a way to try again, or the first load. */
export function QueryStatus({
  query,
  loading,
}: {
  query: { error: Failure; isPending: boolean; refetch: () => unknown };
  loading: string;
}) {
  return (
    <>
      {query.error && <LoadError error={query.error} retry={() => void query.refetch()} />}
      {query.isPending && <Spinner label={loading} />}
    </>
  );
}

/** A column's header: its words, or `{ hidden }` for a column whose header only a screen reader needs (a column of buttons). */
export type Column = string | { hidden: string };

interface TableProps {
  /** For screen readers: what the rows are. */
  caption: string;
  columns: readonly Column[];
  className?: string;
  /** The rows. */
  children: ReactNode;
}

/** A table of rows under one header row, captioned for screen readers. */
export function Table({ caption, columns, className, children }: TableProps) {
  return (
    <table className={className}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) =>
            typeof column === 'string' ? (
              <th key={column} scope="col">
                {column}
              </th>
            ) : (
              <th key={column.hidden} scope="col">
                <span className="visually-hidden">{column.hidden}</span>
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** A Table that scrolls sideways on a narrow screen, marked busy while its rows are read again. */
export function DataTable({ busy, ...table }: TableProps & { busy?: boolean }) {
  return (
    <div className="table-wrap" aria-busy={busy || undefined}>
      <Table {...table} />
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-title">{title}</p>
      {children && <div className="empty-next">{children}</div>}
    </div>
  );
}

const STATUS_LABELS: Record<string, string> = {
  requires_confirmation: 'Awaiting confirmation',
  requires_payment_method: 'Needs a card',
  succeeded: 'Succeeded',
  failed: 'Failed',
  refunded: 'Refunded',
  partially_refunded: 'Partially refunded',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{STATUS_LABELS[status] ?? status}</span>;
}

export function Badge({
  children,
  tone = 'neutral',
}: {
  children: ReactNode;
  tone?: 'neutral' | 'good' | 'warn' | 'bad' | 'info';
}) {
  return <span className={`badge badge-tone-${tone}`}>{children}</span>;
}

/** A secret or token shown once, with a copy button (and the text selectable where the clipboard is unavailable). */
export function Secret({ label, value, note }: { label: string; value: string; note: ReactNode }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const id = useId();
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied('no');
    }
  }
  return (
    <div className="secret" role="region" aria-label={label}>
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input id={id} readOnly value={value} className="mono" onFocus={(event) => event.currentTarget.select()} />
        <Button variant="secondary" onClick={copy}>
          Copy
        </Button>
      </div>
      <p className="field-hint">{note}</p>
      <p className="visually-hidden" aria-live="polite">
        {copied === 'yes' ? 'Copied to the clipboard' : copied === 'no' ? 'Selected: press Ctrl+C to copy' : ''}
      </p>
      {copied && (
        <p className="field-hint" aria-hidden="true">
          {copied === 'yes' ? 'Copied.' : 'Selected: press Ctrl+C (⌘C) to copy.'}
        </p>
      )}
    </div>
  );
}

/** Previous / next for the finance lists' cursor paging (`startingAfter`): the next page starts after `lastId`, the last row shown. */
export function Pager({
  cursor,
  list,
  lastId,
}: {
  cursor: Cursor;
  list: { data?: { hasMore: boolean }; isFetching: boolean };
  lastId: string | undefined;
}) {
  const hasMore = list.data?.hasMore ?? false;
  if (cursor.page === 0 && !hasMore) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <Button variant="secondary" onClick={cursor.previous} disabled={cursor.page === 0 || list.isFetching}>
        Previous
      </Button>
      <span>Page {cursor.page + 1}</span>
      <Button variant="secondary" onClick={() => cursor.next(lastId)} disabled={!hasMore || list.isFetching}>
        Next
      </Button>
    </nav>
  );
}

type Cursor = ReturnType<typeof useCursor>;

/** Cursor paging state: the `startingAfter` of each page seen so far. */
export function useCursor() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  return {
    page: cursors.length - 1,
    startingAfter: cursors[cursors.length - 1],
    next: (lastId: string | undefined) => lastId && setCursors((stack) => [...stack, lastId]),
    previous: () => setCursors((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)),
    reset: () => setCursors([undefined]),
  };
}
