import {
  Alert,
  Anchor,
  Badge as MantineBadge,
  Box,
  Button as MantineButton,
  EmptyState as MantineEmptyState,
  Group,
  Loader,
  NativeSelect,
  Stack,
  Table as MantineTable,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
  type ButtonProps,
  type MantineColor,
} from '@mantine/core';
import { Link } from '@tanstack/react-router';
import { useClipboard } from '@mantine/hooks';
import {
  useEffect,
  useRef,
  useState,
  type ButtonHTMLAttributes,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
} from 'react';
import type { ErrorBody } from './api/client';
import { ResendVerificationButton } from './components/resend-verification';
import { describeError, validationWords, type ErrorAction } from './errors';

/**
 * A failed request as the pages see it: the service's error body (an ApiError, thrown by the client,
 * carries one; status 0 when the service was not reached).
 */
export type Failure = (ErrorBody & { code?: string; retryAfter?: number }) | null | undefined;

/** Validation messages by field name (`errors: [{ field, messages }]`), each worded for a person. */
export function errorFields(error: Failure): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const entry of error?.errors ?? []) {
    const messages = entry.messages.map((message) => validationWords(entry.field, message));
    fields[entry.field] = [...(fields[entry.field] ?? []), ...messages];
  }
  return fields;
}

/** A loader announced to screen readers as `label`. */
export function Spinner({ label = 'Loading' }: { label?: string }) {
  return (
    <Box component="span" className="spinner" role="status" display="inline-flex" style={{ verticalAlign: 'middle' }}>
      <Loader size="sm" aria-hidden="true" />
      <VisuallyHidden>{label}</VisuallyHidden>
    </Box>
  );
}

type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'link';

/** The kit's four kinds of button, as Mantine variants. */
const BUTTON_LOOK: Record<ButtonVariant, Pick<ButtonProps, 'variant' | 'color'>> = {
  primary: { variant: 'filled' },
  secondary: { variant: 'default' },
  danger: { variant: 'filled', color: 'red' },
  // Transparent, not subtle: the subtle hover fill takes the text below AA contrast.
  link: { variant: 'transparent' },
};

/** A button that shows a loader and refuses clicks while its request runs. */
export function Button({
  busy = false,
  variant = 'primary',
  children,
  disabled,
  type = 'button',
  color,
  ...rest
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'color'> & {
  busy?: boolean;
  variant?: ButtonVariant;
  color?: MantineColor;
}) {
  const look = BUTTON_LOOK[variant];
  return (
    <MantineButton
      {...look}
      color={color ?? look.color}
      size="sm"
      type={type}
      loading={busy}
      disabled={disabled}
      aria-busy={busy || undefined}
      {...rest}
    >
      {children}
    </MantineButton>
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
    <Group gap="sm" mt="xs">
      <Button type="submit" variant={variant} busy={busy}>
        {children}
      </Button>
      {onCancel && (
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      )}
    </Group>
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

/** A labelled input with its hint and its error (from the API), tied together for screen readers. */
export function Field({
  label,
  error,
  hint,
  ...input
}: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'size'>) {
  return (
    // No asterisk: the label stays the control's exact name, and the browser says what is required.
    <TextInput
      label={label}
      withAsterisk={false}
      error={error}
      description={hint}
      inputWrapperOrder={['label', 'input', 'description', 'error']}
      {...input}
    />
  );
}

/** A new password, under the service's rule (8 characters at least), offered to the browser's password manager to keep. */
export function NewPasswordField(props: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'size'>) {
  return <Field type="password" autoComplete="new-password" required minLength={8} {...props} />;
}

/** A labelled native select (its options as children), with its hint and error. */
export function SelectField({
  label,
  error,
  hint,
  children,
  ...select
}: FieldProps & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'size'>) {
  return (
    <NativeSelect
      withAsterisk={false}
      label={label}
      error={error}
      description={hint}
      inputWrapperOrder={['label', 'input', 'description', 'error']}
      {...select}
    >
      {children}
    </NativeSelect>
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

/** What gets a person past an error: a link, a button, or nothing but the sentence. */
function ErrorActionControl({ action, retry }: { action: ErrorAction | undefined; retry?: () => void }) {
  switch (action?.kind) {
    case 'retry':
      return retry ? (
        <Button variant="secondary" onClick={retry}>
          Try again
        </Button>
      ) : null;
    case 'resend-verification':
      return <ResendVerificationButton />;
    case 'add-factor':
      return (
        <Anchor component={Link} to="/security">
          Add a second factor
        </Anchor>
      );
    case 'sign-in':
      return (
        <Anchor component={Link} to="/login">
          Sign in again
        </Anchor>
      );
    default:
      return retry ? (
        <Button variant="secondary" onClick={retry}>
          Try again
        </Button>
      ) : null;
  }
}

/** A failure's sentence and its action, in an alert. */
function ErrorAlert({
  error,
  retry,
  children,
}: {
  error: NonNullable<Failure>;
  retry?: () => void;
  children?: ReactNode;
}) {
  const words = describeError(error);
  return (
    <Alert color="red" variant="light" role="alert" p="sm">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{words.sentence}</Text>
        {children}
        <ErrorActionControl action={words.action} retry={retry} />
      </Stack>
    </Alert>
  );
}

/**
 * The error of a request that no field shows: a sentence and an action when the API named no field
 * this form has, or a summary when it did (the fields show the details). Never a path or a field name.
 */
export function FormError({ error, fields = [] }: { error: Failure; fields?: string[] }) {
  if (!error) return null;
  const all = errorFields(error);
  const shown = Object.keys(all).filter((field) => fields.includes(field));
  const others = Object.entries(all).filter(([field]) => !fields.includes(field));
  if (shown.length > 0 && others.length === 0) {
    return (
      <Alert color="red" variant="light" role="alert" p="sm">
        <Text size="sm">Please correct the highlighted {shown.length === 1 ? 'field' : 'fields'}.</Text>
      </Alert>
    );
  }
  if (others.length === 0) return <ErrorAlert error={error} />;
  return (
    <Alert color="red" variant="light" role="alert" p="sm">
      <Text size="sm">This could not be saved:</Text>
      <Box component="ul" my={4} pl="lg">
        {others.flatMap(([field, messages]) =>
          messages.map((message) => (
            <Text component="li" size="sm" key={`${field}:${message}`}>
              {message}
            </Text>
          )),
        )}
      </Box>
    </Alert>
  );
}

/** Why a button's request (one with no form around it, in a row) failed, beside the button. */
export function ActionError({ error }: { error: Failure }) {
  if (!error) return null;
  const words = describeError(error);
  return (
    <Text component="span" size="sm" c="red" role="alert">
      {words.sentence} {words.action?.kind === 'resend-verification' && <ResendVerificationButton />}
      {words.action?.kind === 'add-factor' && <ErrorActionControl action={words.action} />}
    </Text>
  );
}

/** A failed load, with a way to try again. */
export function LoadError({ error, retry }: { error: NonNullable<Failure>; retry: () => void }) {
  return <ErrorAlert error={error} retry={retry} />;
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
    <Stack component="section" aria-labelledby={headingId} gap="md">
      <Title order={1} id={headingId}>
        {heading}
      </Title>
      <LoadError error={error} retry={retry} />
      <Text>{children}</Text>
    </Stack>
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

/** A table of rows under one header row, captioned for screen readers (lists that page or sort use ListTable). */
export function Table({ caption, columns, className, children }: TableProps) {
  return (
    <MantineTable className={className} verticalSpacing="xs" highlightOnHover>
      <caption className="visually-hidden">{caption}</caption>
      <MantineTable.Thead>
        <MantineTable.Tr>
          {columns.map((column) =>
            typeof column === 'string' ? (
              <MantineTable.Th key={column} scope="col">
                {column}
              </MantineTable.Th>
            ) : (
              <MantineTable.Th key={column.hidden} scope="col">
                <VisuallyHidden>{column.hidden}</VisuallyHidden>
              </MantineTable.Th>
            ),
          )}
        </MantineTable.Tr>
      </MantineTable.Thead>
      <MantineTable.Tbody>{children}</MantineTable.Tbody>
    </MantineTable>
  );
}

/** A Table that scrolls sideways on a narrow screen, marked busy while its rows are read again. */
export function DataTable({ busy, ...table }: TableProps & { busy?: boolean }) {
  return (
    <MantineTable.ScrollContainer minWidth={600} aria-busy={busy || undefined} style={{ opacity: busy ? 0.6 : 1 }}>
      <Table {...table} />
    </MantineTable.ScrollContainer>
  );
}

/** Nothing to list yet: what the list is for, and the next step. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <MantineEmptyState
      align="left"
      size="sm"
      title={title}
      description={children}
      py="md"
      styles={{ title: { fontWeight: 600 } }}
    />
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

const STATUS_TONES: Record<string, Tone> = {
  requires_confirmation: 'warn',
  requires_payment_method: 'warn',
  succeeded: 'good',
  failed: 'bad',
  refunded: 'neutral',
  partially_refunded: 'info',
};

/** A payment's status in words, coloured by what it means. */
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONES[status] ?? 'neutral'}>{STATUS_LABELS[status] ?? status}</Badge>;
}

type Tone = 'neutral' | 'good' | 'warn' | 'bad' | 'info';

export function Badge({ children, tone = 'neutral' }: { children: ReactNode; tone?: Tone }) {
  // The tone's colour pair of styles.css: AA contrast in both schemes, which the library's light badges lack.
  return (
    // Inline-block, not the library's inline-flex: a badge reads as a word of its sentence (its text has no line breaks).
    <MantineBadge
      variant="filled"
      bg={`var(--${tone}-bg)`}
      c={`var(--${tone}-fg)`}
      radius="sm"
      tt="none"
      display="inline-block"
      style={{ verticalAlign: 'middle' }}
    >
      {children}
    </MantineBadge>
  );
}

/**
 * A secret or token shown once, with a copy button (Mantine's clipboard hook, CopyButton's own); where
 * the clipboard refuses, the text is selected for the person to copy.
 */
export function Secret({ label, value, note }: { label: string; value: string; note: ReactNode }) {
  const clipboard = useClipboard({ timeout: 4000 });
  const input = useRef<HTMLInputElement>(null);
  const refused = clipboard.error !== null;
  useEffect(() => {
    if (refused) input.current?.select();
  }, [refused]);
  return (
    <Box role="region" aria-label={label}>
      <TextInput
        ref={input}
        label={label}
        readOnly
        value={value}
        description={note}
        inputWrapperOrder={['label', 'input', 'description']}
        data-dynamic
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        onFocus={(event) => event.currentTarget.select()}
        rightSectionWidth={84}
        rightSection={
          <MantineButton size="compact-sm" variant="default" onClick={() => clipboard.copy(value)}>
            {clipboard.copied ? 'Copied' : 'Copy'}
          </MantineButton>
        }
      />
      <VisuallyHidden aria-live="polite">
        {clipboard.copied ? 'Copied to the clipboard' : refused ? 'Selected: press Ctrl+C to copy' : ''}
      </VisuallyHidden>
      {refused && (
        <Text size="xs" c="dimmed" aria-hidden="true" mt={4}>
          Selected: press Ctrl+C (⌘C) to copy.
        </Text>
      )}
    </Box>
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
    <Group component="nav" aria-label="Pages" gap="sm" mt="sm">
      <Button variant="secondary" onClick={cursor.previous} disabled={cursor.page === 0 || list.isFetching}>
        Previous
      </Button>
      <Text size="sm">Page {cursor.page + 1}</Text>
      <Button variant="secondary" onClick={() => cursor.next(lastId)} disabled={!hasMore || list.isFetching}>
        Next
      </Button>
    </Group>
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
