import { Group, NativeSelect, Paper, SimpleGrid, Stack, Switch, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { describeError } from '../errors';
import { formatDate } from '../money';
import { useSession } from '../session';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import {
  ActionError,
  Badge,
  Button,
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
    <Stack component="section" gap="md" aria-labelledby="team-heading">
      <Title order={1} id="team-heading">
        Team
      </Title>
      <Text c="dimmed" size="sm">
        The people of {session.account?.name}. Every member reads and writes records; managers also refund; admins
        manage members, invitations, projects and keys.
      </Text>

      <Title order={2} size="h3">
        Members
      </Title>
      <QueryStatus query={members} loading="Loading members" />
      {rows.length > 0 && (
        <ListTable
          caption="Members"
          rows={rows}
          columns={MEMBER_COLUMNS}
          rowKey={(member) => member.userId}
          busy={members.isFetching}
          initialSort={{ id: 'joined' }}
        />
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
                  <Text span ff="monospace" size="xs" style={{ overflowWrap: 'anywhere' }}>
                    {`${window.location.origin}${import.meta.env.BASE_URL}invitation?token=${encodeURIComponent(created.token)}`}
                  </Text>{' '}
                  (the link mailed to them). Valid once, until {formatDate(created.expiresAt)}.
                </>
              }
            />
          )}
          <Title order={2} size="h3">
            Pending invitations
          </Title>
          <QueryStatus query={invitations} loading="Loading invitations" />
          {invitations.data && pending.length === 0 && (
            <EmptyState title="No pending invitations.">Invite someone with the form above.</EmptyState>
          )}
          {pending.length > 0 && (
            <Stack
              component="ul"
              gap="xs"
              p={0}
              m={0}
              style={{ listStyle: 'none' }}
              aria-busy={invitations.isFetching || undefined}
            >
              {pending.map((invitation) => (
                <InvitationItem key={invitation.id} accountId={accountId} invitation={invitation} />
              ))}
            </Stack>
          )}
        </>
      )}
    </Stack>
  );
}

const MEMBER_COLUMNS: ListColumn<Member>[] = [
  {
    id: 'name',
    header: 'Name',
    rowHeader: true,
    cell: (member) => <MemberName member={member} />,
    sortBy: (member) => `${member.firstName} ${member.lastName}`,
  },
  {
    id: 'email',
    header: 'Email',
    cell: (member) => <span data-dynamic>{member.email}</span>,
    sortBy: (member) => member.email,
  },
  { id: 'role', header: 'Role', width: 200, cell: (member) => <MemberRole member={member} />, sortBy: (m) => m.role },
  {
    id: 'joined',
    header: 'Joined',
    width: 130,
    cell: (member) => <DateTime value={member.joinedAt} />,
    sortBy: (member) => new Date(member.joinedAt),
  },
  {
    id: 'actions',
    header: 'Actions',
    hiddenHeader: true,
    width: 120,
    align: 'right',
    cell: (member) => <MemberActions member={member} />,
  },
];

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
    <Paper withBorder p="md" component="section" aria-labelledby="two-step-heading">
      <Stack gap="sm">
        <Title order={2} size="h4" id="two-step-heading">
          Two-step sign-in
        </Title>
        {account.owner ? (
          <Switch
            checked={account.requireMfa}
            disabled={change.busy}
            aria-describedby="two-step-meaning"
            onChange={(event) => void change.run(event.currentTarget.checked)}
            label={`Require two-step sign-in for ${account.name}`}
          />
        ) : (
          <Text>
            {account.name} {account.requireMfa ? 'requires' : 'does not require'} two-step sign-in.
          </Text>
        )}
        <Text id="two-step-meaning" c="dimmed" size="sm">
          {meaning}
        </Text>
        <FormError error={change.error} fields={['requireMfa']} />
      </Stack>
    </Paper>
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

function MemberName({ member }: { member: Member }) {
  const session = useSession();
  return (
    <Group gap={6}>
      <Text fw={600} size="sm">
        {member.firstName} {member.lastName}
      </Text>
      {member.owner && <Badge tone="info">Owner</Badge>}
      {member.userId === session.me.user.id && (
        <Text span c="dimmed" size="xs">
          (you)
        </Text>
      )}
    </Group>
  );
}

function MemberRole({ member }: { member: Member }) {
  const session = useSession();
  const accountId = session.account?.id ?? '';
  const [role, setRole] = useState<Role>(member.role);
  const changeRole = useAction(async (next: Role) => {
    await call(
      api.PATCH('/api/v1/accounts/{accountId}/members/{userId}', {
        params: { path: { accountId, userId: member.userId } },
        body: { role: next },
      }),
    );
  }, TEAM_CHANGE);
  const name = `${member.firstName} ${member.lastName}`;
  if (!session.isAdmin || member.owner) return <>{member.role}</>;
  return (
    <Group gap="xs" wrap="nowrap">
      <NativeSelect
        aria-label={`Role of ${name}`}
        size="xs"
        value={role}
        disabled={changeRole.busy}
        error={fieldError(changeRole.error, 'role') ?? (changeRole.error && describeError(changeRole.error).sentence)}
        onChange={(event) => {
          const next = event.currentTarget.value as Role;
          setRole(next);
          void changeRole.run(next);
        }}
      >
        <Options values={ROLES} />
      </NativeSelect>
      {changeRole.busy && <Spinner label="Saving the role" />}
    </Group>
  );
}

function MemberActions({ member }: { member: Member }) {
  const session = useSession();
  const accountId = session.account?.id ?? '';
  const isSelf = member.userId === session.me.user.id;
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
    <Stack gap={4} align="flex-end">
      {(canManage || (isSelf && !member.owner)) && (
        <Button
          variant="danger"
          busy={remove.busy}
          onClick={() => {
            if (window.confirm(isSelf ? 'Leave this account?' : `Remove ${name} from the account?`)) void remove.run();
          }}
        >
          {isSelf ? 'Leave' : 'Remove'}
        </Button>
      )}
      <ActionError error={remove.error} />
    </Stack>
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
    <Paper withBorder p="md" component="form" aria-labelledby="invite-heading" onSubmit={runOnSubmit(invite.run)}>
      <Stack gap="sm">
        <Title order={2} size="h4" id="invite-heading">
          Invite someone
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
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
        </SimpleGrid>
        <FormError error={invite.error} fields={['email', 'role']} />
        <Group>
          <Button type="submit" busy={invite.busy}>
            Create invitation
          </Button>
        </Group>
      </Stack>
    </Paper>
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
    <Paper component="li" withBorder px="md" py="xs">
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm">
          <strong data-dynamic>{invitation.email}</strong> as {invitation.role}{' '}
          <Text span c="dimmed" size="xs" data-dynamic>
            until {formatDate(invitation.expiresAt)}
          </Text>
        </Text>
        <Group gap="xs" wrap="nowrap">
          <ActionError error={revoke.error} />
          <Button
            variant="danger"
            busy={revoke.busy}
            onClick={() => void revoke.run()}
            aria-label={`Revoke the invitation of ${invitation.email}`}
          >
            Revoke
          </Button>
        </Group>
      </Group>
    </Paper>
  );
}
