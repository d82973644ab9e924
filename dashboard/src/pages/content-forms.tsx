import { Alert, Button, Center, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useState, type CSSProperties, type FormEvent, type ReactNode } from 'react';
import { api, call, idempotencyKey, type ApiError, type Schemas } from '../api/client';
import { useAction } from '../hooks';
import { errorFields } from '../ui';

type Client = Schemas['ClientResponse'];
type Channel = Schemas['ChannelResponse'];

const CLIENT_CHANGE = { invalidates: ['/clients', '/api/v1/accounts/{accountId}/audit-log'] } as const;
const CHANNEL_CHANGE = { invalidates: ['/channels/client/{clientId}', '/channels/{id}'] } as const;

const lightDark = (light: string, dark: string) => `light-dark(${light}, ${dark})`;

/**
 * Colours the content pages set on their root so every text keeps WCAG AA contrast (4.5:1) in both
 * colour schemes: Mantine's defaults for dimmed text, errors, filled buttons and light badges are
 * shade 6, under 4.5:1 on white. Dialogs render at the page's root (DIALOG_ROOT) to inherit
 * them. A theme that sets these for the whole dashboard makes this unnecessary.
 */
export const CONTRAST_VARS = {
  '--mantine-color-anchor': lightDark('var(--mantine-color-blue-9)', 'var(--mantine-color-blue-4)'),
  '--mantine-color-dimmed': lightDark('var(--mantine-color-gray-7)', 'var(--mantine-color-dark-1)'),
  '--mantine-color-error': lightDark('var(--mantine-color-red-9)', 'var(--mantine-color-red-4)'),
  '--mantine-primary-color-filled': 'var(--mantine-color-blue-8)',
  '--mantine-primary-color-filled-hover': 'var(--mantine-color-blue-9)',
  '--mantine-primary-color-light-color': lightDark('var(--mantine-color-blue-9)', 'var(--mantine-color-blue-2)'),
  '--mantine-color-blue-filled': 'var(--mantine-color-blue-8)',
  '--mantine-color-blue-filled-hover': 'var(--mantine-color-blue-9)',
  '--mantine-color-blue-light-color': lightDark('var(--mantine-color-blue-9)', 'var(--mantine-color-blue-2)'),
  '--mantine-color-red-filled': 'var(--mantine-color-red-9)',
  '--mantine-color-red-filled-hover': 'var(--mantine-color-red-9)',
  '--mantine-color-red-light-color': lightDark('var(--mantine-color-red-9)', 'var(--mantine-color-red-2)'),
  '--mantine-color-green-light-color': lightDark('var(--mantine-color-text)', 'var(--mantine-color-green-2)'),
  '--mantine-color-yellow-light-color': lightDark('var(--mantine-color-text)', 'var(--mantine-color-yellow-2)'),
  '--mantine-color-gray-light-color': 'var(--mantine-color-text)',
} as CSSProperties;

/** The attribute of a content page's root, where its dialogs render (inheriting CONTRAST_VARS). */
export const DIALOG_ROOT = { 'data-content-dialogs': '' } as const;

/**
 * Every dialog of the content pages: rendered at the page's root, its close button named for screen
 * readers, shown and gone at once (a fading dialog is half-read text for a while).
 */
export const DIALOG_PROPS = {
  portalProps: { target: '[data-content-dialogs]' },
  transitionProps: { duration: 0 },
  closeButtonProps: { 'aria-label': 'Close' },
} as const;

/** A question asked once more before something that cannot be undone: Cancel, or `confirm` in red. */
export function ConfirmModal({
  title,
  confirm,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  confirm: string;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal opened onClose={onClose} title={title} centered {...DIALOG_PROPS}>
      <Stack gap="sm">
        <Text fz="sm">{children}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            color="red"
            data-autofocus
            onClick={() => {
              onClose();
              onConfirm();
            }}
          >
            {confirm}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** A sentence ends with a full stop, whatever the message it is made of. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * The service's messages for one field, in the words of the form: the field's name, which starts
 * them (`avatarUrl must be an http(s) URL`), is the label the person sees instead.
 */
export function fieldSentence(error: ApiError | undefined, field: string, label: string): string | undefined {
  const messages = errorFields(error)[field];
  if (!messages?.length) return undefined;
  const named = new RegExp(`^${field}\\b`);
  return messages.map((message) => sentence(message.replace(named, label))).join(' ');
}

/**
 * What a refused request says to the person, as one sentence with what to do next. Fields the form
 * shows carry their own messages; the alert then points at them instead of repeating them.
 */
export function refusal(error: ApiError | undefined, fields: readonly string[]): string | undefined {
  if (!error) return undefined;
  const named = Object.keys(errorFields(error));
  if (named.length > 0 && named.every((field) => fields.includes(field)))
    return 'Some fields need a change: correct the ones marked below and try again.';
  if (error.status === 0) return 'The service could not be reached: check the connection and try again.';
  if (error.status === 403) return `${sentence(error.message)} Ask an admin of the account for the role.`;
  return sentence(error.message);
}

/** The alert a modal's form shows above its buttons when the service refused it. */
export function RefusalAlert({ error, fields = [] }: { error: ApiError | undefined; fields?: readonly string[] }) {
  const text = refusal(error, fields);
  if (!text) return null;
  return (
    <Alert color="red" variant="light" role="alert" title="Not saved">
      {text}
    </Alert>
  );
}

/** A modal holding one form: its title names the form for screen readers, its buttons are Cancel and `submit`. */
export function FormModal({
  opened,
  onClose,
  title,
  submit,
  busy,
  onSubmit,
  children,
  danger,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  submit: string;
  busy: boolean;
  onSubmit: () => void;
  children: ReactNode;
  danger?: boolean;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered {...DIALOG_PROPS}>
      <form
        aria-label={title}
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <Stack gap="sm">
          {children}
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} color={danger ? 'red' : undefined}>
              {submit}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

const CLIENT_FIELDS = ['name', 'email', 'phone'] as const;

/** Creates a client, or edits one (`client`): its name, contact email and phone. */
export function ClientModal({ client, onClose }: { client?: Client; onClose: () => void }) {
  const [name, setName] = useState(client?.name ?? '');
  const [email, setEmail] = useState(client?.email ?? '');
  const [phone, setPhone] = useState(client?.phone ?? '');
  const save = useAction(async () => {
    const body = { name: name.trim(), email: email.trim(), ...(phone.trim() ? { phone: phone.trim() } : {}) };
    if (client) await call(api.PUT('/clients/{id}', { params: { path: { id: client._id } }, body }));
    else await call(api.POST('/clients', { params: { header: { 'Idempotency-Key': idempotencyKey() } }, body }));
    onClose();
    return true;
  }, CLIENT_CHANGE);
  return (
    <FormModal
      opened
      onClose={onClose}
      title={client ? `Edit ${client.name}` : 'New client'}
      submit={client ? 'Save client' : 'Create client'}
      busy={save.busy}
      onSubmit={() => void save.run()}
    >
      <TextInput
        label="Name"
        required
        data-autofocus
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={fieldSentence(save.error, 'name', 'Name')}
        description="The person or company the channels belong to."
      />
      <TextInput
        label="Email"
        type="email"
        required
        value={email}
        onChange={(event) => setEmail(event.currentTarget.value)}
        error={fieldSentence(save.error, 'email', 'Email')}
      />
      <TextInput
        label="Phone (optional)"
        type="tel"
        value={phone}
        onChange={(event) => setPhone(event.currentTarget.value)}
        error={fieldSentence(save.error, 'phone', 'Phone')}
      />
      <RefusalAlert error={save.error} fields={CLIENT_FIELDS} />
    </FormModal>
  );
}

const CHANNEL_FIELDS = ['name', 'username', 'avatarUrl', 'role', 'clientId'] as const;

/** Creates a channel of `client`, or edits one (`channel`): its name, username, avatar and the owner's role. */
export function ChannelModal({
  client,
  channel,
  onClose,
}: {
  client: Pick<Client, '_id' | 'name'>;
  channel?: Channel;
  onClose: () => void;
}) {
  const [name, setName] = useState(channel?.name ?? '');
  const [username, setUsername] = useState(channel?.username ?? '');
  const [avatarUrl, setAvatarUrl] = useState(channel?.avatarUrl ?? '');
  const [role, setRole] = useState(channel?.role ?? 'creator');
  const save = useAction(async () => {
    const body = { name: name.trim(), username: username.trim(), avatarUrl: avatarUrl.trim(), role: role.trim() };
    if (channel) await call(api.PUT('/channels/{id}', { params: { path: { id: channel._id } }, body }));
    else
      await call(
        api.POST('/channels', {
          params: { header: { 'Idempotency-Key': idempotencyKey() } },
          body: { ...body, clientId: client._id },
        }),
      );
    onClose();
    return true;
  }, CHANNEL_CHANGE);
  return (
    <FormModal
      opened
      onClose={onClose}
      title={channel ? `Edit ${channel.name}` : `New channel of ${client.name}`}
      submit={channel ? 'Save channel' : 'Create channel'}
      busy={save.busy}
      onSubmit={() => void save.run()}
    >
      <TextInput
        label="Channel name"
        required
        data-autofocus
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={fieldSentence(save.error, 'name', 'Channel name')}
      />
      <TextInput
        label="Username"
        required
        value={username}
        onChange={(event) => setUsername(event.currentTarget.value)}
        error={fieldSentence(save.error, 'username', 'Username')}
        description="Unique among the channels of this project, whatever its case; shown as @username."
      />
      <TextInput
        label="Avatar address"
        type="url"
        required
        placeholder="https://"
        value={avatarUrl}
        onChange={(event) => setAvatarUrl(event.currentTarget.value)}
        error={fieldSentence(save.error, 'avatarUrl', 'Avatar address')}
        description="An http or https address of the channel's picture."
      />
      <TextInput
        label="Owner's role"
        required
        value={role}
        onChange={(event) => setRole(event.currentTarget.value)}
        error={fieldSentence(save.error, 'role', "Owner's role")}
        description="Free words, for example creator, admin or moderator."
      />
      <RefusalAlert error={save.error} fields={CHANNEL_FIELDS} />
    </FormModal>
  );
}

/**
 * A project's thumbnail in a list, 96 px wide like YouTube Studio's: the project's pictures live on
 * other hosts the dashboard does not load from, so the thumbnail shows its type instead.
 */
export function ProjectThumb({ type }: { type: string }) {
  return (
    <Center
      w={96}
      h={54}
      bg="var(--mantine-color-default-hover)"
      style={{ borderRadius: 'var(--mantine-radius-sm)', flex: 'none' }}
      aria-hidden="true"
    >
      <Text fz="xs" c="dimmed" fw={600} tt="uppercase">
        {type}
      </Text>
    </Center>
  );
}
