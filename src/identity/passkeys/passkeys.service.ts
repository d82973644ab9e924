import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleDestroy,
  OnModuleInit,
  UnauthorizedException,
} from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type {
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { LazyLibrary } from '../../common/lazy/lazy-library';
import { passkeysConfig } from '../../config/passkeys.config';
import type { Ceremony } from './passkey-challenge.schema';
import type { Passkey } from './passkey.schema';
import { PasskeysRepository } from './passkeys.repository';

/** How long the browser may take over a ceremony. */
const CEREMONY_TIMEOUT_MS = 120_000;
/** How long a challenge is accepted: the ceremony's time and a little for the answer to arrive. */
const CHALLENGE_ACCEPTED_MS = CEREMONY_TIMEOUT_MS + 30_000;
/** Challenges and their uses are kept well past that, then swept. */
const CHALLENGES_KEPT_SECONDS = 600;
export const PASSKEY_REFUSED = 'The passkey was not accepted';

/** WebAuthn's ceremonies, loaded by the first one an instance runs (the installed check is at start). */
const webauthn = new LazyLibrary<typeof import('@simplewebauthn/server')>('@simplewebauthn/server');

/**
 * Passkeys (WebAuthn credentials, `@simplewebauthn/server`): the ceremonies that register one and
 * sign in with one, and the list a user keeps of theirs.
 *
 * Invariant: an authenticator's answer counts at most once. Every ceremony signs a challenge this
 * service issued and stored (bound to its ceremony and, for a registration, to the signed-in user);
 * before an answer is verified its challenge is claimed by an insert against a unique index
 * (`passkey_challenge_uses`), which MongoDB and FerretDB both apply atomically, so a replayed answer,
 * or the same answer sent twice at once on two instances, is refused; a challenge is accepted for
 * `CHALLENGE_ACCEPTED_MS` only. A signature counter that does not move forward (a cloned
 * authenticator) is refused, and the new counter is written guarded by the one it was checked against.
 * User verification is required at both ceremonies, so a passkey alone is two factors (assurance `mfa`).
 * Challenges and their uses are dropped `CHALLENGES_KEPT_SECONDS` after they were made (MongoDB's TTL
 * index, FerretDB's hourly sweep), answered or not; how many an address may ask for is the sign-in
 * limits' concern (src/identity/attempts).
 */
@Injectable()
export class PasskeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PasskeysService.name);
  private stopSweep: () => void = () => undefined;

  constructor(
    private readonly passkeys: PasskeysRepository,
    @Inject(passkeysConfig.KEY) private readonly config: ConfigType<typeof passkeysConfig>,
  ) {}

  async onModuleInit(): Promise<void> {
    webauthn.assertInstalled();
    this.stopSweep = await this.passkeys.expireChallengesByAge(CHALLENGES_KEPT_SECONDS, this.logger);
  }

  onModuleDestroy(): void {
    this.stopSweep();
  }

  hasAny(userId: string): Promise<boolean> {
    return this.passkeys.userHasAny(userId);
  }

  list(userId: string): Promise<Passkey[]> {
    return this.passkeys.listForUser(userId);
  }

  /** The options for `navigator.credentials.create()`: a discoverable credential, verified user, the user's passkeys excluded. */
  async registrationOptions(user: { id: string; email: string }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.passkeys.listForUser(user.id);
    const options = await webauthn.load().generateRegistrationOptions({
      rpName: this.config.rpName,
      rpID: this.config.rpId,
      userName: user.email,
      userDisplayName: user.email,
      // The user's id as the handle: stable, and no personal data in it.
      userID: new Uint8Array(Buffer.from(user.id, 'hex')),
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as AuthenticatorTransport[],
      })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    await this.passkeys.issueChallenge(options.challenge, 'registration', user.id);
    return options;
  }

  /** Verifies the authenticator's answer to a registration and keeps the passkey; 400 when it does not verify, 409 when its challenge is not one to answer or the passkey is registered already. */
  async register(userId: string, name: string, credential: RegistrationResponseJSON): Promise<Passkey> {
    // A challenge not issued (or spent, or stale) is a state of the enrolment, as TOTP's: 409, and the dashboard asks for new options.
    const challenge = await this.spendChallenge(
      challengeOf(credential.response.clientDataJSON),
      'registration',
      userId,
      (message) => new ConflictException(message),
    );
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await webauthn.load().verifyRegistrationResponse({
        response: credential,
        expectedChallenge: challenge,
        expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId,
        requireUserVerification: true,
      });
    } catch (error) {
      throw new BadRequestException(`The passkey could not be registered: ${(error as Error).message}`);
    }
    if (!verified.verified)
      throw new BadRequestException('The passkey could not be registered: its answer did not verify');
    const { credential: registered, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const passkey = await this.passkeys.insert({
      userId,
      credentialId: registered.id,
      publicKey: Buffer.from(registered.publicKey).toString('base64url'),
      counter: registered.counter,
      transports: registered.transports ?? credential.response.transports ?? [],
      name,
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
    });
    if (!passkey) throw new ConflictException('This passkey is registered already');
    return passkey;
  }

  /** The options for `navigator.credentials.get()`: any passkey of this service the authenticator holds, the user verified. */
  async authenticationOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await webauthn.load().generateAuthenticationOptions({
      rpID: this.config.rpId,
      timeout: CEREMONY_TIMEOUT_MS,
      userVerification: 'required',
    });
    await this.passkeys.issueChallenge(options.challenge, 'authentication', null);
    return options;
  }

  /**
   * Verifies an answer to the authentication options: the passkey and its user. `userId` limits it
   * to that user's passkeys (a step-up). `admit` is told whose passkey the answer names (null: none
   * registered here) before its challenge is spent or anything verified, so the sign-in limits count
   * the attempt first and may refuse it. Anything that does not verify is 401.
   */
  async authenticate(
    credential: AuthenticationResponseJSON,
    { userId = null, admit }: { userId?: string | null; admit?: (owner: string | null) => Promise<void> } = {},
  ): Promise<{ userId: string; passkey: Passkey }> {
    const answered = challengeOf(credential.response.clientDataJSON);
    const passkey = await this.passkeys.findByCredentialId(credential.id);
    if (admit) await admit(passkey ? String(passkey.userId) : null);
    const challenge = await this.spendChallenge(
      answered,
      'authentication',
      null,
      (message) => new UnauthorizedException(message),
    );
    if (!passkey || (userId !== null && String(passkey.userId) !== userId))
      throw new UnauthorizedException(`${PASSKEY_REFUSED}: it is not registered here`);
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await webauthn.load().verifyAuthenticationResponse({
        response: credential,
        expectedChallenge: challenge,
        expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: passkey.counter,
          transports: passkey.transports as AuthenticatorTransport[],
        },
        requireUserVerification: true,
      });
    } catch (error) {
      throw new UnauthorizedException(`${PASSKEY_REFUSED}: ${(error as Error).message}`);
    }
    if (!verified.verified) throw new UnauthorizedException(`${PASSKEY_REFUSED}: its signature did not verify`);
    const at = new Date();
    if (!(await this.passkeys.recordUse(passkey._id, passkey.counter, verified.authenticationInfo.newCounter, at))) {
      throw new UnauthorizedException(`${PASSKEY_REFUSED}: it was used at the same moment elsewhere`);
    }
    const { publicKey: _key, ...used } = passkey;
    return {
      userId: String(passkey.userId),
      passkey: { ...used, counter: verified.authenticationInfo.newCounter, lastUsedAt: at } as Passkey,
    };
  }

  async rename(userId: string, id: string, name: string): Promise<Passkey> {
    const renamed = await this.passkeys.rename(userId, id, name);
    if (!renamed) throw new NotFoundException('Passkey not found');
    return renamed;
  }

  /** Removes one of the user's passkeys; another user's is 404, as an unknown one. */
  async remove(userId: string, id: string): Promise<Passkey> {
    const removed = await this.passkeys.remove(userId, id);
    if (!removed) throw new NotFoundException('Passkey not found');
    return removed;
  }

  /** The challenge the answer signed, once: issued by this service for this ceremony (and user), not stale, not answered before. */
  private async spendChallenge(
    challenge: string,
    ceremony: Ceremony,
    userId: string | null,
    refuse: (message: string) => Error,
  ): Promise<string> {
    const issued = await this.passkeys.findChallenge(challenge);
    const fresh = issued && Date.now() - new Date(issued.createdAt).getTime() <= CHALLENGE_ACCEPTED_MS;
    if (!issued || !fresh || issued.ceremony !== ceremony || (userId !== null && String(issued.userId) !== userId)) {
      throw refuse(`${PASSKEY_REFUSED}: its challenge is unknown or expired; ask for new options`);
    }
    if (!(await this.passkeys.claimChallenge(challenge)))
      throw refuse(`${PASSKEY_REFUSED}: its challenge was answered already; ask for new options`);
    return challenge;
  }
}

/** The challenge inside the client data; 400 when it is not the client data of a ceremony at all. */
function challengeOf(clientDataJSON: string): string {
  let challenge: unknown;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    challenge =
      typeof parsed === 'object' && parsed !== null ? (parsed as { challenge?: unknown }).challenge : undefined;
  } catch {
    challenge = undefined;
  }
  if (typeof challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(challenge)) return challenge;
  throw new BadRequestException('credential.response.clientDataJSON is not the client data of a WebAuthn ceremony');
}
