import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { Browser } from './sessions';

/** The options a ceremony starts from, as the service answers them (only what an authenticator reads). */
interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
}

interface Credential {
  id: Buffer;
  rpId: string;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
/** User present, user verified; attested credential data follows (registration). */
const FLAGS_GET = 0x01 | 0x04;
const FLAGS_CREATE = FLAGS_GET | 0x40;

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

/**
 * A WebAuthn authenticator in software (ES256, `none` attestation, user verified), for API tests that
 * need no browser: it answers the service's options exactly as `@simplewebauthn/browser` would
 * serialise a real authenticator's answer, from the origin it is told. Its signature counter moves
 * forward at every use unless a test names one.
 */
export class SoftwareAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(readonly origin = 'http://localhost:3000') {}

  /** A new credential for the options' user (or `credential` again: an authenticator that ignores `excludeCredentials`). */
  create(
    options: CreationOptions,
    { origin = this.origin, credential: reused }: { origin?: string; credential?: Credential } = {},
  ) {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const privateKey = reused?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    const coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = reused?.id ?? randomBytes(16);
    if (!reused) this.credentials.push({ id, rpId, privateKey, userHandle: options.user.id, counter: 0 });
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([FLAGS_CREATE]),
      counterBytes(0),
      Buffer.alloc(16),
      idLength,
      id,
      Buffer.from(coseKey),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin,
      crossOrigin: false,
    });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** Signs the options' challenge with a credential (the last registered unless named); `counter` overrides the next counter. */
  get(
    options: RequestOptions,
    {
      credential = this.credentials[this.credentials.length - 1],
      counter,
      origin = this.origin,
    }: { credential?: Credential; counter?: number; origin?: string } = {},
  ) {
    if (!credential) throw new Error('This authenticator holds no credential');
    credential.counter = counter ?? credential.counter + 1;
    const authData = Buffer.concat([
      sha256(options.rpId ?? credential.rpId),
      Buffer.from([FLAGS_GET]),
      counterBytes(credential.counter),
    ]);
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.get',
      challenge: options.challenge,
      origin,
      crossOrigin: false,
    });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}

/** Registers a passkey of `authenticator` for the browser's user (options, then the answer); throws on any answer but 201. */
export async function addPasskey(
  browser: Browser,
  authenticator: SoftwareAuthenticator,
  name = 'Test key',
): Promise<{ id: string; name: string }> {
  const options = await browser.post('/api/v1/me/passkeys/options');
  if (options.status !== 200) throw new Error(`passkey options failed: ${options.status} ${options.text}`);
  const added = await browser.post('/api/v1/me/passkeys', { name, credential: authenticator.create(options.body) });
  if (added.status !== 201) throw new Error(`passkey registration failed: ${added.status} ${added.text}`);
  return added.body.data;
}
