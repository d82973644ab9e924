import { useState } from 'react';
import type { Factor } from '../session';
import { Button, Field } from '../ui';

/** Which proof the person types: the app's 6-digit code, or one of their recovery codes. */
export type FactorKind = 'totp' | 'recoveryCode';

export function toFactor(kind: FactorKind, value: string): Factor {
  const trimmed = value.trim();
  return kind === 'totp' ? { totp: trimmed.replace(/\s+/g, '') } : { recoveryCode: trimmed };
}

/**
 * The second step's one field: the authenticator app's code, or (a link away) a recovery code for a
 * person without their phone. The form around it owns the value and the submit.
 */
export function SecondFactorField({
  kind,
  onKind,
  value,
  onChange,
  error,
}: {
  kind: FactorKind;
  onKind: (kind: FactorKind) => void;
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  const [touched, setTouched] = useState(false);
  return (
    <>
      {kind === 'totp' ? (
        <Field
          key="totp"
          label="Authenticator code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9 ]{6,7}"
          maxLength={7}
          required
          autoFocus
          value={value}
          onChange={(event) => (setTouched(true), onChange(event.target.value))}
          hint="The 6-digit code your authenticator app shows now."
          error={error}
        />
      ) : (
        <Field
          key="recovery"
          label="Recovery code"
          autoComplete="off"
          maxLength={32}
          required
          autoFocus
          value={value}
          onChange={(event) => (setTouched(true), onChange(event.target.value))}
          hint="One of the codes you saved when you turned on two-step sign-in. Each works once."
          error={error}
        />
      )}
      <Button
        variant="link"
        style={{ alignSelf: 'flex-start' }}
        onClick={() => {
          onKind(kind === 'totp' ? 'recoveryCode' : 'totp');
          if (touched) onChange('');
        }}
      >
        {kind === 'totp' ? 'Use a recovery code instead' : 'Use the authenticator app instead'}
      </Button>
    </>
  );
}
