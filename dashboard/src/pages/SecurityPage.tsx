import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import QRCode from 'qrcode';
import { Alert, Box, Code, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { $api, type Schemas } from '../api/client';
import { formatDate } from '../money';
import { ceremonyProblem, promptForPasskey } from '../passkeys/ceremony';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import {
  ActionError,
  Badge,
  Button,
  EmptyState,
  Field,
  fieldError,
  FormActions,
  FormError,
  NewPasswordField,
  QueryStatus,
  Secret,
  Spinner,
} from '../ui';

type SessionRow = Schemas['SessionView'];
type Passkey = Schemas['PasskeyView'];
type RegistrationOptions = Parameters<typeof startRegistration>[0]['optionsJSON'];

const SESSIONS = { meta: { invalidates: ['/api/v1/sessions'] } } as const;
const FACTORS = { meta: { invalidates: ['/api/v1/me/mfa', '/api/v1/me/passkeys'] } } as const;

/** The signed-in user's own security: where they are signed in, their password, their second factors. */
export function SecurityPage() {
  return (
    <Stack component="section" gap="xl" aria-labelledby="security-heading">
      <Stack gap={4}>
        <Title order={1} id="security-heading">
          Security
        </Title>
        <Text c="dimmed" size="sm">
          Where you are signed in, your password, and the second factors that protect your sign-in.
        </Text>
      </Stack>
      <SessionsSection />
      <PasswordSection />
      <TotpSection />
      <PasskeysSection />
    </Stack>
  );
}

function SessionsSection() {
  const sessions = $api.useQuery('get', '/api/v1/sessions');
  const endOthers = $api.useMutation('delete', '/api/v1/sessions', SESSIONS);
  const rows = sessions.data?.data ?? [];
  const others = rows.filter((row) => !row.current);
  return (
    <Stack component="section" gap="sm" aria-labelledby="sessions-heading">
      <Title order={2} size="h3" id="sessions-heading">
        Sessions
      </Title>
      <QueryStatus query={sessions} loading="Loading sessions" />
      {sessions.data && rows.length === 0 && (
        <EmptyState title="No dashboard sessions.">Signing in from a browser opens one.</EmptyState>
      )}
      {rows.length > 0 && (
        <ListTable
          caption="Sessions"
          rows={rows}
          columns={SESSION_COLUMNS}
          rowKey={(row) => row.id}
          busy={sessions.isFetching}
        />
      )}
      {others.length > 0 && (
        <Group>
          <Button variant="danger" busy={endOthers.isPending} onClick={() => endOthers.mutate({})}>
            Sign out other devices
          </Button>
        </Group>
      )}
      {endOthers.data && (
        <Text role="status" size="sm">
          {endOthers.data.ended} other {endOthers.data.ended === 1 ? 'session' : 'sessions'} ended.
        </Text>
      )}
      <FormError error={endOthers.error} />
    </Stack>
  );
}

const SESSION_COLUMNS: ListColumn<SessionRow>[] = [
  {
    id: 'device',
    header: 'Device',
    rowHeader: true,
    cell: (row) => (
      <Group gap={6}>
        <Text size="sm">{row.device ?? 'Unknown device'}</Text>
        {row.current && <Badge tone="info">This device</Badge>}
        {row.assurance === 'mfa' && <Badge tone="good">Two-step</Badge>}
      </Group>
    ),
  },
  { id: 'address', header: 'Address', width: 150, cell: (row) => <Code>{row.ip ?? '—'}</Code> },
  {
    id: 'created',
    header: 'Signed in',
    width: 150,
    cell: (row) => <DateTime value={row.createdAt} />,
    sortBy: (row) => new Date(row.createdAt),
  },
  {
    id: 'seen',
    header: 'Last seen',
    width: 150,
    cell: (row) => <DateTime value={row.lastSeenAt} />,
    sortBy: (row) => new Date(row.lastSeenAt),
  },
  {
    id: 'actions',
    header: 'Actions',
    hiddenHeader: true,
    width: 110,
    align: 'right',
    cell: (row) => <EndSession row={row} />,
  },
];

function EndSession({ row }: { row: SessionRow }) {
  const end = $api.useMutation('delete', '/api/v1/sessions/{id}', SESSIONS);
  if (row.current) return null;
  return (
    <Stack gap={4} align="flex-end">
      <Button
        variant="secondary"
        busy={end.isPending}
        aria-label={`End the session on ${row.device ?? 'Unknown device'}, last seen ${formatDate(row.lastSeenAt)}`}
        onClick={() => end.mutate({ params: { path: { id: row.id } } })}
      >
        End
      </Button>
      <ActionError error={end.error} />
    </Stack>
  );
}

function PasswordSection() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [password, setPassword] = useState('');
  const change = $api.useMutation('put', '/api/v1/me/password', SESSIONS);

  function submit(event: FormEvent) {
    event.preventDefault();
    change.mutate(
      { body: { currentPassword, password } },
      {
        onSuccess: () => {
          setCurrentPassword('');
          setPassword('');
        },
      },
    );
  }

  return (
    <Stack component="section" gap="sm" aria-labelledby="password-heading">
      <Title order={2} size="h3" id="password-heading">
        Password
      </Title>
      <Paper withBorder p="md" maw={560} component="form" onSubmit={submit} aria-labelledby="password-heading">
        <Stack gap="sm">
          <Field
            label="Current password"
            type="password"
            autoComplete="current-password"
            required
            value={currentPassword}
            onChange={(event) => setCurrentPassword(event.target.value)}
            error={fieldError(change.error, 'currentPassword')}
          />
          <NewPasswordField
            label="New password"
            hint="At least 8 characters. Every other session ends."
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            error={fieldError(change.error, 'password')}
          />
          <FormError error={change.error} fields={['currentPassword', 'password']} />
          <FormActions busy={change.isPending}>Change password</FormActions>
          {change.isSuccess && (
            <Text role="status" size="sm">
              Password changed. Your other sessions were ended.
            </Text>
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}

function TotpSection() {
  const factors = $api.useQuery('get', '/api/v1/me/mfa');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | undefined>();
  const on = Boolean(factors.data?.data.totpEnabledAt);
  return (
    <Stack component="section" gap="sm" aria-labelledby="totp-heading">
      <Title order={2} size="h3" id="totp-heading">
        Authenticator app
      </Title>
      <QueryStatus query={factors} loading="Loading your second factors" />
      {recoveryCodes && <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(undefined)} />}
      {factors.data &&
        !recoveryCodes &&
        (on ? (
          <TotpOn since={factors.data.data.totpEnabledAt!} left={factors.data.data.recoveryCodesLeft} />
        ) : (
          <TotpEnrol onEnabled={setRecoveryCodes} />
        ))}
    </Stack>
  );
}

function TotpEnrol({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const begin = $api.useMutation('post', '/api/v1/me/mfa/totp');
  // The codes are handed up from the mutation itself, not from `mutate`'s callback: the factors'
  // refetch this answer causes shows the app as on, which unmounts this form, and a callback given to
  // `mutate` is dropped once its component is gone (the codes were then never shown).
  const verify = $api.useMutation('post', '/api/v1/me/mfa/totp/verify', {
    ...FACTORS,
    onSuccess: (answer) => onEnabled(answer.recoveryCodes),
  });
  const [code, setCode] = useState('');
  const [qr, setQr] = useState<string | undefined>();
  const uri = begin.data?.uri;

  useEffect(() => {
    if (!uri) return;
    let current = true;
    void QRCode.toDataURL(uri, { margin: 1, width: 192 }).then((url) => current && setQr(url));
    return () => {
      current = false;
    };
  }, [uri]);

  function submit(event: FormEvent) {
    event.preventDefault();
    verify.mutate({ body: { code } });
  }

  if (!begin.data) {
    return (
      <>
        <Text size="sm">
          Off. With an authenticator app, signing in asks for a 6-digit code as well as your password.
        </Text>
        <Group>
          <Button busy={begin.isPending} onClick={() => begin.mutate({})}>
            Set up an authenticator app
          </Button>
        </Group>
        <FormError error={begin.error} />
      </>
    );
  }
  return (
    <Paper withBorder p="md" maw={560} component="form" onSubmit={submit} aria-label="Confirm the authenticator app">
      <Stack gap="sm">
        <Text size="sm">
          Scan this code with your authenticator app, or type the key below into it. Then enter the code it shows.
        </Text>
        {qr ? (
          <img src={qr} width={192} height={192} alt="QR code of the authenticator app's key" data-dynamic />
        ) : (
          <Spinner label="Drawing the QR code" />
        )}
        <Secret
          label="Key for the authenticator app"
          value={begin.data.secret}
          note="Only for your authenticator app: anyone with it can make your codes."
        />
        <AppCodeField
          label="Code from the app"
          value={code}
          onChange={setCode}
          error={fieldError(verify.error, 'code')}
        />
        <FormError error={verify.error} fields={['code']} />
        <FormActions busy={verify.isPending}>Turn on</FormActions>
      </Stack>
    </Paper>
  );
}

/** The authenticator app's 6-digit code, as turning the app on or off asks for it. */
function AppCodeField({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  value: string;
  onChange: (code: string) => void;
  error?: string;
}) {
  return (
    <Field
      label={label}
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="\d{6}"
      maxLength={6}
      required
      value={value}
      onChange={(event) => onChange(event.target.value.trim())}
      error={error}
    />
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <Paper withBorder p="md" maw={560} role="region" aria-label="Recovery codes">
      <Stack gap="sm">
        <Text role="status" fw={600}>
          The authenticator app is on.
        </Text>
        <Text size="sm">
          Keep these recovery codes somewhere safe: each signs you in once without the app.{' '}
          <strong>They are shown only now.</strong>
        </Text>
        <SimpleGrid
          component="ul"
          cols={2}
          spacing={4}
          p={0}
          m={0}
          style={{ listStyle: 'none' }}
          aria-label="Your recovery codes"
          data-dynamic
        >
          {codes.map((code) => (
            <Text component="li" ff="monospace" size="sm" key={code}>
              {code}
            </Text>
          ))}
        </SimpleGrid>
        <Group>
          <Button onClick={onDone}>I have saved them</Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function TotpOn({ since, left }: { since: string; left: number }) {
  const disable = $api.useMutation('delete', '/api/v1/me/mfa/totp', FACTORS);
  const [code, setCode] = useState('');

  function submit(event: FormEvent) {
    event.preventDefault();
    disable.mutate({ body: { code } }, { onSuccess: () => setCode('') });
  }

  return (
    <>
      <Group gap="xs">
        <Badge tone="good">On</Badge>
        <Text size="sm">
          since <DateTime value={since} />. {left} recovery {left === 1 ? 'code' : 'codes'} left.
        </Text>
      </Group>
      <Group component="form" align="flex-start" gap="sm" onSubmit={submit} aria-label="Turn off the authenticator app">
        <AppCodeField
          label="Code from the app, to turn it off"
          value={code}
          onChange={setCode}
          error={fieldError(disable.error, 'code')}
        />
        <Box pt={25}>
          <Button type="submit" variant="danger" busy={disable.isPending}>
            Turn off
          </Button>
        </Box>
      </Group>
      <FormError error={disable.error} fields={['code']} />
    </>
  );
}

/** What went wrong in the browser's part of adding a passkey, in words: an authenticator refuses a second passkey for one account. */
function registrationProblem(error: unknown): string {
  if (error instanceof Error && error.name === 'InvalidStateError')
    return 'This authenticator holds a passkey for this account already.';
  return ceremonyProblem(error);
}

function PasskeysSection() {
  const passkeys = $api.useQuery('get', '/api/v1/me/passkeys');
  const options = $api.useMutation('post', '/api/v1/me/passkeys/options');
  const register = $api.useMutation('post', '/api/v1/me/passkeys', FACTORS);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [added, setAdded] = useState<string | undefined>();
  /** The passkey being renamed, if any. */
  const [editing, setEditing] = useState<string | undefined>();
  const rows = passkeys.data?.data ?? [];
  const supported = browserSupportsWebAuthn();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setProblem(undefined);
    setAdded(undefined);
    register.reset();
    const credential = await promptForPasskey(
      () => options.mutateAsync({}),
      (optionsJSON: RegistrationOptions) => startRegistration({ optionsJSON }),
      setProblem,
      registrationProblem,
    );
    if (!credential) return;
    register.mutate(
      { body: { name, credential: credential as Schemas['RegisterPasskeyDto']['credential'] } },
      {
        onSuccess: (answer) => {
          setAdded(answer.data.name);
          setName('');
        },
      },
    );
  }

  return (
    <Stack component="section" gap="sm" aria-labelledby="passkeys-heading">
      <Title order={2} size="h3" id="passkeys-heading">
        Passkeys
      </Title>
      <Text c="dimmed" size="sm">
        A passkey signs you in without a password, with your device&apos;s lock (a fingerprint, a face, a PIN); it
        counts as two-step sign-in.
      </Text>
      <QueryStatus query={passkeys} loading="Loading passkeys" />
      {passkeys.data && rows.length === 0 && <EmptyState title="No passkeys yet." />}
      {rows.length > 0 && (
        <ListTable
          caption="Passkeys"
          rows={rows}
          columns={passkeyColumns(editing, setEditing)}
          rowKey={(passkey) => passkey.id}
          busy={passkeys.isFetching}
        />
      )}
      {supported ? (
        <Group
          component="form"
          align="flex-start"
          gap="sm"
          onSubmit={(event) => void submit(event)}
          aria-label="Add a passkey"
        >
          <Field
            label="Name of the new passkey"
            hint="To tell your passkeys apart, like “Work laptop”."
            required
            maxLength={64}
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={fieldError(register.error, 'name')}
          />
          <Box pt={25}>
            <Button type="submit" busy={options.isPending || register.isPending}>
              Add a passkey
            </Button>
          </Box>
        </Group>
      ) : (
        <Text size="sm">This browser cannot create passkeys.</Text>
      )}
      {added && (
        <Text role="status" size="sm">
          Passkey “{added}” added.
        </Text>
      )}
      {problem && (
        <Alert color="red" variant="light" role="alert" p="sm">
          {problem}
        </Alert>
      )}
      <FormError error={options.error ?? register.error} fields={['name']} />
    </Stack>
  );
}

/** The passkeys' columns: the one being renamed (`editing`) shows the rename form in its name cell. */
function passkeyColumns(
  editing: string | undefined,
  setEditing: (id: string | undefined) => void,
): ListColumn<Passkey>[] {
  return [
    {
      id: 'name',
      header: 'Name',
      rowHeader: true,
      cell: (passkey) =>
        editing === passkey.id ? (
          <RenamePasskey passkey={passkey} onDone={() => setEditing(undefined)} />
        ) : (
          <Group gap={6}>
            <Text size="sm">{passkey.name}</Text>
            {passkey.synced && <Badge>Synced</Badge>}
          </Group>
        ),
    },
    {
      id: 'added',
      header: 'Added',
      width: 150,
      cell: (passkey) => <DateTime value={passkey.createdAt} />,
    },
    {
      id: 'used',
      header: 'Last used',
      width: 150,
      cell: (passkey) => (passkey.lastUsedAt ? <DateTime value={passkey.lastUsedAt} /> : 'Never'),
    },
    {
      id: 'actions',
      header: 'Actions',
      hiddenHeader: true,
      width: 200,
      align: 'right',
      cell: (passkey) => (
        <PasskeyActions passkey={passkey} editing={editing === passkey.id} onRename={() => setEditing(passkey.id)} />
      ),
    },
  ];
}

function RenamePasskey({ passkey, onDone }: { passkey: Passkey; onDone: () => void }) {
  const rename = $api.useMutation('patch', '/api/v1/me/passkeys/{id}', FACTORS);
  const [name, setName] = useState(passkey.name);
  function submit(event: FormEvent) {
    event.preventDefault();
    rename.mutate({ params: { path: { id: passkey.id } }, body: { name } }, { onSuccess: onDone });
  }
  return (
    <Stack component="form" gap="xs" onSubmit={submit} aria-label={`Rename ${passkey.name}`}>
      <Field
        label={`New name for ${passkey.name}`}
        required
        maxLength={64}
        autoFocus
        value={name}
        onChange={(event) => setName(event.target.value)}
        error={fieldError(rename.error, 'name')}
      />
      <FormError error={rename.error} fields={['name']} />
      <Group gap="xs">
        <Button type="submit" busy={rename.isPending}>
          Save
        </Button>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </Group>
    </Stack>
  );
}

function PasskeyActions({ passkey, editing, onRename }: { passkey: Passkey; editing: boolean; onRename: () => void }) {
  const remove = $api.useMutation('delete', '/api/v1/me/passkeys/{id}', FACTORS);
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs" wrap="nowrap">
        {!editing && (
          <Button variant="secondary" aria-label={`Rename ${passkey.name}`} onClick={onRename}>
            Rename
          </Button>
        )}
        <Button
          variant="danger"
          busy={remove.isPending}
          aria-label={`Remove ${passkey.name}`}
          onClick={() => remove.mutate({ params: { path: { id: passkey.id } } })}
        >
          Remove
        </Button>
      </Group>
      <ActionError error={remove.error} />
    </Stack>
  );
}
