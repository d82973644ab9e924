import { Stack } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useAction } from '../hooks';
import { needsSecondFactor, useSession } from '../session';
import { Field, FormActions, FormError } from '../ui';
import { SecondFactorField, toFactor, type FactorKind } from './SecondFactorField';

/**
 * Opens a session in another of the user's accounts: the API binds a session to one account, so this
 * is a new sign-in with `accountId` (the password, and the second factor for a user who has one).
 */
export function SwitchAccountForm({
  accountId,
  accountName,
  onDone,
  onCancel,
}: {
  accountId: string;
  accountName: string;
  onDone?: () => void;
  onCancel?: () => void;
}) {
  const session = useSession();
  const [password, setPassword] = useState('');
  const [secondStep, setSecondStep] = useState(false);
  const [kind, setKind] = useState<FactorKind>('totp');
  const [code, setCode] = useState('');
  const switching = useAction(async () => {
    try {
      await session.switchAccount(accountId, password, secondStep ? toFactor(kind, code) : undefined);
    } catch (error) {
      if (!secondStep && needsSecondFactor(error)) {
        setSecondStep(true);
        return false;
      }
      throw error;
    }
    return true;
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (await switching.run()) onDone?.();
  }

  const refusal = switching.error?.status === 401 ? switching.error.message : undefined;
  return (
    <Stack component="form" gap="sm" onSubmit={submit} aria-label={`Switch to ${accountName}`}>
      {secondStep ? (
        <SecondFactorField kind={kind} onKind={setKind} value={code} onChange={setCode} error={refusal} />
      ) : (
        <Field
          label={`Password to switch to ${accountName}`}
          type="password"
          autoComplete="current-password"
          autoFocus
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          error={refusal}
        />
      )}
      <FormActions busy={switching.busy} onCancel={onCancel}>
        Switch account
      </FormActions>
      {switching.error?.status !== 401 && <FormError error={switching.error} fields={['password']} />}
    </Stack>
  );
}
