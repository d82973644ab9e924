import { Group, Paper, SimpleGrid, Stack, Title, Text } from '@mantine/core';
import { useState } from 'react';
import { api, call, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { useSession } from '../session';
import { Button, Field, fieldError, FormError, SelectField } from '../ui';

type AccountType = Schemas['CreateAccountDto']['type'];

/** A user who belongs to no account (they left, or were removed): create one, or accept an invitation. */
export function NoAccountPage() {
  const session = useSession();
  const [name, setName] = useState('');
  const [type, setType] = useState<AccountType>('company');
  const [token, setToken] = useState('');
  const [password, setPassword] = useState('');

  // The token names the account it acts in: after joining or creating one, log in to it.
  const create = useAction(async () => {
    const account = (await call(api.POST('/api/v1/accounts', { body: { name, type } }))).data;
    await session.switchAccount(account.id, password);
  });
  const accept = useAction(async () => {
    const account = (await call(api.POST('/api/v1/invitations/accept', { body: { token: token.trim() } }))).data;
    await session.switchAccount(account.id, password);
  });

  return (
    <Stack component="section" gap="md" aria-labelledby="no-account-heading">
      <Title order={1} id="no-account-heading">
        Create or join an account
      </Title>
      <Text>
        You belong to no account yet. Customers, payments and keys live in an account: create one, or join one with an
        invitation token.
      </Text>
      <Field
        label="Your password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        hint="Needed to log in to the account once it is created or joined."
      />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Paper
          withBorder
          p="md"
          component="form"
          aria-labelledby="create-account-heading"
          onSubmit={runOnSubmit(create.run)}
        >
          <Stack gap="sm">
            <Title order={2} size="h4" id="create-account-heading">
              New account
            </Title>
            <Field
              label="Account name"
              required
              value={name}
              onChange={(event) => setName(event.target.value)}
              error={fieldError(create.error, 'name')}
            />
            <SelectField
              label="Type"
              value={type}
              onChange={(event) => setType(event.target.value as AccountType)}
              error={fieldError(create.error, 'type')}
            >
              <option value="company">Company</option>
              <option value="developer">Developer</option>
            </SelectField>
            <FormError error={create.error} fields={['name', 'type']} />
            <Group>
              <Button type="submit" busy={create.busy}>
                Create account
              </Button>
            </Group>
          </Stack>
        </Paper>
        <Paper withBorder p="md" component="form" aria-labelledby="accept-heading" onSubmit={runOnSubmit(accept.run)}>
          <Stack gap="sm">
            <Title order={2} size="h4" id="accept-heading">
              Join with an invitation
            </Title>
            <Field
              label="Invitation token"
              required
              value={token}
              onChange={(event) => setToken(event.target.value)}
              error={fieldError(accept.error, 'token')}
            />
            <FormError error={accept.error} fields={['token']} />
            <Group>
              <Button type="submit" busy={accept.busy}>
                Join account
              </Button>
            </Group>
          </Stack>
        </Paper>
      </SimpleGrid>
    </Stack>
  );
}
