import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import QRCode from 'qrcode';
import { useEffect, useState, type FormEvent } from 'react';
import { $api, type Schemas } from '../api/client';
import { formatDate } from '../money';
import { ceremonyProblem, promptForPasskey } from '../passkeys/ceremony';
import {
  Badge,
  Button,
  DataTable,
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
    <section aria-labelledby="security-heading">
      <h1 id="security-heading">Security</h1>
      <p className="muted">Where you are signed in, your password, and the second factors that protect your sign-in.</p>
      <SessionsSection />
      <PasswordSection />
      <TotpSection />
      <PasskeysSection />
    </section>
  );
}

function SessionsSection() {
  const sessions = $api.useQuery('get', '/api/v1/sessions');
  const endOthers = $api.useMutation('delete', '/api/v1/sessions', SESSIONS);
  const rows = sessions.data?.data ?? [];
  const others = rows.filter((row) => !row.current);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <QueryStatus query={sessions} loading="Loading sessions" />
      {sessions.data && rows.length === 0 && (
        <EmptyState title="No dashboard sessions.">Signing in from a browser opens one.</EmptyState>
      )}
      {rows.length > 0 && (
        <DataTable
          busy={sessions.isFetching}
          caption="Sessions"
          columns={['Device', 'Address', 'Signed in', 'Last seen', 'Actions']}
        >
          {rows.map((row) => (
            <SessionItem key={row.id} row={row} />
          ))}
        </DataTable>
      )}
      {others.length > 0 && (
        <div className="actions">
          <Button variant="danger" busy={endOthers.isPending} onClick={() => endOthers.mutate({})}>
            Sign out other devices
          </Button>
        </div>
      )}
      {endOthers.data && (
        <p role="status">
          {endOthers.data.ended} other {endOthers.data.ended === 1 ? 'session' : 'sessions'} ended.
        </p>
      )}
      <FormError error={endOthers.error} />
    </section>
  );
}

function SessionItem({ row }: { row: SessionRow }) {
  const end = $api.useMutation('delete', '/api/v1/sessions/{id}', SESSIONS);
  const device = row.device ?? 'Unknown device';
  return (
    <tr>
      <th scope="row">
        {device} {row.current && <Badge tone="info">This device</Badge>}{' '}
        {row.assurance === 'mfa' && <Badge tone="good">Two-step</Badge>}
      </th>
      <td className="mono">{row.ip ?? '—'}</td>
      <td>{formatDate(row.createdAt)}</td>
      <td>{formatDate(row.lastSeenAt)}</td>
      <td>
        {!row.current && (
          <Button
            variant="secondary"
            busy={end.isPending}
            aria-label={`End the session on ${device}, last seen ${formatDate(row.lastSeenAt)}`}
            onClick={() => end.mutate({ params: { path: { id: row.id } } })}
          >
            End
          </Button>
        )}
        <FormError error={end.error} />
      </td>
    </tr>
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
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form className="card" onSubmit={submit} aria-labelledby="password-heading">
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
        <FormActions busy={change.isPending}>Change password</FormActions>
        {change.isSuccess && <p role="status">Password changed. Your other sessions were ended.</p>}
        <FormError error={change.error} fields={['currentPassword', 'password']} />
      </form>
    </section>
  );
}

function TotpSection() {
  const factors = $api.useQuery('get', '/api/v1/me/mfa');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | undefined>();
  const on = Boolean(factors.data?.data.totpEnabledAt);
  return (
    <section aria-labelledby="totp-heading">
      <h2 id="totp-heading">Authenticator app</h2>
      <QueryStatus query={factors} loading="Loading your second factors" />
      {recoveryCodes && <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(undefined)} />}
      {factors.data &&
        !recoveryCodes &&
        (on ? (
          <TotpOn since={factors.data.data.totpEnabledAt!} left={factors.data.data.recoveryCodesLeft} />
        ) : (
          <TotpEnrol onEnabled={setRecoveryCodes} />
        ))}
    </section>
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
        <p>Off. With an authenticator app, signing in asks for a 6-digit code as well as your password.</p>
        <div className="actions">
          <Button busy={begin.isPending} onClick={() => begin.mutate({})}>
            Set up an authenticator app
          </Button>
        </div>
        <FormError error={begin.error} />
      </>
    );
  }
  return (
    <form className="card" onSubmit={submit} aria-label="Confirm the authenticator app">
      <p>Scan this code with your authenticator app, or type the key below into it. Then enter the code it shows.</p>
      {qr ? (
        <img src={qr} width={192} height={192} alt="QR code of the authenticator app's key" />
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
      <FormActions busy={verify.isPending}>Turn on</FormActions>
      <FormError error={verify.error} fields={['code']} />
    </form>
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
    <div className="card" role="region" aria-label="Recovery codes">
      <p role="status">The authenticator app is on.</p>
      <p>
        Keep these recovery codes somewhere safe: each signs you in once without the app.{' '}
        <strong>They are shown only now.</strong>
      </p>
      <ul className="mono" aria-label="Your recovery codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="actions">
        <Button onClick={onDone}>I have saved them</Button>
      </div>
    </div>
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
      <p>
        <Badge tone="good">On</Badge> since {formatDate(since)}. {left} recovery {left === 1 ? 'code' : 'codes'} left.
      </p>
      <form className="inline-form" onSubmit={submit} aria-label="Turn off the authenticator app">
        <AppCodeField
          label="Code from the app, to turn it off"
          value={code}
          onChange={setCode}
          error={fieldError(disable.error, 'code')}
        />
        <Button type="submit" variant="danger" busy={disable.isPending}>
          Turn off
        </Button>
      </form>
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
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p className="muted">
        A passkey signs you in without a password, with your device&apos;s lock (a fingerprint, a face, a PIN); it
        counts as two-step sign-in.
      </p>
      <QueryStatus query={passkeys} loading="Loading passkeys" />
      {passkeys.data && rows.length === 0 && <EmptyState title="No passkeys yet." />}
      {rows.length > 0 && (
        <DataTable busy={passkeys.isFetching} caption="Passkeys" columns={['Name', 'Added', 'Last used', 'Actions']}>
          {rows.map((passkey) => (
            <PasskeyItem key={passkey.id} passkey={passkey} />
          ))}
        </DataTable>
      )}
      {supported ? (
        <form className="inline-form" onSubmit={(event) => void submit(event)} aria-label="Add a passkey">
          <Field
            label="Name of the new passkey"
            hint="To tell your passkeys apart, like “Work laptop”."
            required
            maxLength={64}
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={fieldError(register.error, 'name')}
          />
          <Button type="submit" busy={options.isPending || register.isPending}>
            Add a passkey
          </Button>
        </form>
      ) : (
        <p className="notice">This browser cannot create passkeys.</p>
      )}
      {added && <p role="status">Passkey “{added}” added.</p>}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <FormError error={options.error ?? register.error} fields={['name']} />
    </section>
  );
}

function PasskeyItem({ passkey }: { passkey: Passkey }) {
  const rename = $api.useMutation('patch', '/api/v1/me/passkeys/{id}', FACTORS);
  const remove = $api.useMutation('delete', '/api/v1/me/passkeys/{id}', FACTORS);
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(passkey.name);
  const path = { params: { path: { id: passkey.id } } };

  function submit(event: FormEvent) {
    event.preventDefault();
    rename.mutate({ ...path, body: { name } }, { onSuccess: () => setEditing(false) });
  }

  return (
    <tr>
      <th scope="row">
        {editing ? (
          <form className="inline-form" onSubmit={submit} aria-label={`Rename ${passkey.name}`}>
            <Field
              label={`New name for ${passkey.name}`}
              required
              maxLength={64}
              autoFocus
              value={name}
              onChange={(event) => setName(event.target.value)}
              error={fieldError(rename.error, 'name')}
            />
            <Button type="submit" busy={rename.isPending}>
              Save
            </Button>
            <Button variant="secondary" onClick={() => (setEditing(false), setName(passkey.name), rename.reset())}>
              Cancel
            </Button>
          </form>
        ) : (
          <>
            {passkey.name} {passkey.synced && <Badge>Synced</Badge>}
          </>
        )}
      </th>
      <td>{formatDate(passkey.createdAt)}</td>
      <td>{passkey.lastUsedAt ? formatDate(passkey.lastUsedAt) : 'Never'}</td>
      <td>
        <div className="row-actions">
          {!editing && (
            <Button variant="secondary" aria-label={`Rename ${passkey.name}`} onClick={() => setEditing(true)}>
              Rename
            </Button>
          )}
          <Button
            variant="danger"
            busy={remove.isPending}
            aria-label={`Remove ${passkey.name}`}
            onClick={() => remove.mutate(path)}
          >
            Remove
          </Button>
        </div>
        <FormError error={rename.error ?? remove.error} fields={['name']} />
      </td>
    </tr>
  );
}
