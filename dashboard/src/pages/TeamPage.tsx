import { useState } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { formatDate } from '../money';
import { useSession } from '../session';
import {
  ActionError,
  Badge,
  Button,
  DataTable,
  EmptyState,
  Field,
  fieldError,
  FormError,
  Options,
  QueryStatus,
  Secret,
  SelectField,
  Spinner,
} from '../ui';

type Member = Schemas['MemberView'];
type Role = Member['role'];
type CreatedInvitation = Schemas['CreatedInvitationView'];
const ROLES: Role[] = ['developer', 'manager', 'admin'];

/** The account's members (change a role, remove) and its invitations (invite, copy the token, revoke). */
export function TeamPage() {
  const session = useSession();
  const accountId = session.account?.id ?? '';
  const members = $api.useQuery('get', '/api/v1/accounts/{accountId}/members', { params: { path: { accountId } } });
  // The API refuses them to the other roles: not asked for.
  const invitations = $api.useQuery(
    'get',
    '/api/v1/accounts/{accountId}/invitations',
    { params: { path: { accountId } } },
    { enabled: session.isAdmin },
  );
  const [created, setCreated] = useState<CreatedInvitation | undefined>();
  const rows = members.data?.data ?? [];
  const pending = invitations.data?.data ?? [];

  return (
    <section aria-labelledby="team-heading">
      <h1 id="team-heading">Team</h1>
      <p className="muted">
        The people of {session.account?.name}. Every member reads and writes records; managers also refund; admins
        manage members, invitations, projects and keys.
      </p>

      <h2>Members</h2>
      <QueryStatus query={members} loading="Loading members" />
      {rows.length > 0 && (
        <DataTable busy={members.isFetching} caption="Members" columns={['Name', 'Email', 'Role', 'Joined', 'Actions']}>
          {rows.map((member) => (
            <MemberRow key={member.userId} member={member} />
          ))}
        </DataTable>
      )}
      {members.data && rows.length === 1 && (
        <EmptyState title="You are the only member.">
          {session.isAdmin
            ? 'Invite a colleague below: they sign up with the token you pass on.'
            : 'An admin can invite colleagues.'}
        </EmptyState>
      )}

      <RequireTwoStep />

      {session.isAdmin && (
        <>
          <InviteForm accountId={accountId} onInvited={setCreated} />
          {created && (
            <Secret
              label={`Invitation token for ${created.email}`}
              value={created.token}
              note={
                <>
                  Shown only now: pass it on to {created.email}, who signs up with it (or, already registered, accepts
                  it) at{' '}
                  <span className="mono break">{`${window.location.origin}${import.meta.env.BASE_URL}invitation?token=${encodeURIComponent(created.token)}`}</span>{' '}
                  (the link mailed to them). Valid once, until {formatDate(created.expiresAt)}.
                </>
              }
            />
          )}
          <h2>Pending invitations</h2>
          <QueryStatus query={invitations} loading="Loading invitations" />
          {invitations.data && pending.length === 0 && (
            <EmptyState title="No pending invitations.">Invite someone with the form above.</EmptyState>
          )}
          {pending.length > 0 && (
            <ul className="list" aria-busy={invitations.isFetching || undefined}>
              {pending.map((invitation) => (
                <InvitationItem key={invitation.id} accountId={accountId} invitation={invitation} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

/**
 * The owner's switch: every member must sign in with a second factor. Shown to the others as a fact.
 * The API refuses it to an owner without a factor of their own (they would be locked out): its message shows.
 */
function RequireTwoStep() {
  const session = useSession();
  const account = session.account;
  const change = useAction(
    async (requireMfa: boolean) => {
      await call(
        api.PATCH('/api/v1/accounts/{accountId}', {
          params: { path: { accountId: account?.id ?? '' } },
          body: { requireMfa },
        }),
      );
    },
    { invalidates: ['/api/v1/me', '/api/v1/accounts/{accountId}/audit-log'] },
  );
  if (!account) return null;
  const meaning =
    'Every member must then sign in with an authenticator app or a passkey as well as the password; members without one are asked to set one up first.';
  return (
    <section aria-labelledby="two-step-heading" className="card">
      <h2 id="two-step-heading">Two-step sign-in</h2>
      {account.owner ? (
        <label className="switch-row">
          <input
            type="checkbox"
            role="switch"
            checked={account.requireMfa}
            disabled={change.busy}
            aria-describedby="two-step-meaning"
            onChange={(event) => void change.run(event.target.checked)}
          />{' '}
          Require two-step sign-in for {account.name}
        </label>
      ) : (
        <p>
          {account.name} {account.requireMfa ? 'requires' : 'does not require'} two-step sign-in.
        </p>
      )}
      <p id="two-step-meaning" className="muted">
        {meaning}
      </p>
      <FormError error={change.error} fields={['requireMfa']} />
    </section>
  );
}

/** What a change to the team makes stale: the members, the invitations, the audit log. */
const TEAM_CHANGE = {
  invalidates: [
    '/api/v1/accounts/{accountId}/members',
    '/api/v1/accounts/{accountId}/invitations',
    '/api/v1/accounts/{accountId}/audit-log',
  ],
} as const;

function MemberRow({ member }: { member: Member }) {
  const session = useSession();
  const accountId = session.account?.id ?? '';
  const isSelf = member.userId === session.me.user.id;
  const [role, setRole] = useState<Role>(member.role);
  const changeRole = useAction(async (next: Role) => {
    await call(
      api.PATCH('/api/v1/accounts/{accountId}/members/{userId}', {
        params: { path: { accountId, userId: member.userId } },
        body: { role: next },
      }),
    );
  }, TEAM_CHANGE);
  const remove = useAction(async () => {
    await call(
      api.DELETE('/api/v1/accounts/{accountId}/members/{userId}', {
        params: { path: { accountId, userId: member.userId } },
      }),
    );
    if (isSelf) session.logout();
  }, TEAM_CHANGE);
  const name = `${member.firstName} ${member.lastName}`;
  const canManage = session.isAdmin && !member.owner;
  return (
    <tr>
      <th scope="row">
        {name} {member.owner && <Badge tone="info">Owner</Badge>} {isSelf && <span className="muted small">(you)</span>}
      </th>
      <td>{member.email}</td>
      <td>
        {canManage ? (
          <SelectField
            label={`Role of ${name}`}
            className="compact"
            value={role}
            disabled={changeRole.busy}
            error={fieldError(changeRole.error, 'role') ?? changeRole.error?.message}
            onChange={(event) => {
              const next = event.target.value as Role;
              setRole(next);
              void changeRole.run(next);
            }}
          >
            <Options values={ROLES} />
          </SelectField>
        ) : (
          member.role
        )}
        {changeRole.busy && <Spinner label="Saving the role" />}
      </td>
      <td>{formatDate(member.joinedAt)}</td>
      <td className="row-actions">
        {(canManage || (isSelf && !member.owner)) && (
          <Button
            variant="danger"
            busy={remove.busy}
            onClick={() => {
              if (window.confirm(isSelf ? 'Leave this account?' : `Remove ${name} from the account?`))
                void remove.run();
            }}
          >
            {isSelf ? 'Leave' : 'Remove'}
          </Button>
        )}
        <ActionError error={remove.error} />
      </td>
    </tr>
  );
}

function InviteForm({
  accountId,
  onInvited,
}: {
  accountId: string;
  onInvited: (invitation: CreatedInvitation) => void;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const invite = useAction(async () => {
    const created = await call(
      api.POST('/api/v1/accounts/{accountId}/invitations', {
        params: { path: { accountId }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { email: email.trim(), role },
      }),
    );
    setEmail('');
    onInvited(created.data);
  }, TEAM_CHANGE);
  return (
    <form className="card" aria-labelledby="invite-heading" onSubmit={runOnSubmit(invite.run)}>
      <h2 id="invite-heading">Invite someone</h2>
      <div className="grid-2">
        <Field
          label="Email"
          type="email"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fieldError(invite.error, 'email')}
        />
        <SelectField
          label="Role"
          value={role}
          onChange={(event) => setRole(event.target.value as Role)}
          error={fieldError(invite.error, 'role')}
        >
          <Options values={ROLES} />
        </SelectField>
      </div>
      <FormError error={invite.error} fields={['email', 'role']} />
      <Button type="submit" busy={invite.busy}>
        Create invitation
      </Button>
    </form>
  );
}

function InvitationItem({ accountId, invitation }: { accountId: string; invitation: Schemas['InvitationView'] }) {
  const revoke = useAction(async () => {
    await call(
      api.DELETE('/api/v1/accounts/{accountId}/invitations/{invitationId}', {
        params: { path: { accountId, invitationId: invitation.id } },
      }),
    );
  }, TEAM_CHANGE);
  return (
    <li className="list-item">
      <span>
        <strong>{invitation.email}</strong> as {invitation.role}{' '}
        <span className="muted small">until {formatDate(invitation.expiresAt)}</span>
      </span>
      <span className="row-actions">
        <Button
          variant="danger"
          busy={revoke.busy}
          onClick={() => void revoke.run()}
          aria-label={`Revoke the invitation of ${invitation.email}`}
        >
          Revoke
        </Button>
        <ActionError error={revoke.error} />
      </span>
    </li>
  );
}
