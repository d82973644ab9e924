import { CanActivate, ExecutionContext, ForbiddenException, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadata } from '../common/decorators/route-metadata';
import type { RequestContext } from '../tenancy/principal';
import { CredentialsChanges } from '../users/credentials-changes';

const VERIFIED_EMAIL = 'verifiedEmail';

/** The route invites or moves money: a user caller must have verified their email (EmailVerifiedGuard). */
export const RequiresVerifiedEmail = () => SetMetadata(VERIFIED_EMAIL, true);

export const EMAIL_UNVERIFIED = 'Verify your email address first: follow the link mailed at signup (POST /api/v1/email-verifications sends it again)';

/**
 * `@RequiresVerifiedEmail()`: 403 with `code: email_unverified` for a user who has not verified
 * their email. Answered by what the request's authentication read of the user lately
 * (`CredentialsChanges`), so a verified user's request reads nothing more. API keys are not users: a
 * verified user made them (creating one is such a route).
 */
@Injectable()
export class EmailVerifiedGuard implements CanActivate {
  private readonly required: RouteMetadata<boolean>;

  constructor(
    reflector: Reflector,
    private readonly credentials: CredentialsChanges,
  ) {
    this.required = new RouteMetadata(reflector, VERIFIED_EMAIL);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.required.of(context)) return true;
    const principal = context.switchToHttp().getRequest<RequestContext>().principal;
    if (principal?.kind !== 'user') return true;
    if (!(await this.credentials.emailVerified(principal.userId))) {
      throw new ForbiddenException({ message: EMAIL_UNVERIFIED, code: 'email_unverified' });
    }
    return true;
  }
}
