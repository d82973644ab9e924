import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Types } from 'mongoose';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import type { AuditAction } from '../../audit/audit-entry.schema';
import { AuditTrail } from '../../audit/audit-trail';
import { MembershipLookup } from '../../tenancy/tenancy-lookups';

/** Who a user's own action is recorded as: their id and their email (as it was when they acted). */
export interface AuditedUser {
  _id: Types.ObjectId | string;
  email: string;
}

/**
 * A user's own actions (signing in, a session ended, a password or a factor changed) recorded in
 * the audit log of every account they belong to, so each one's admins see them. The memberships are
 * read through tenancy's `MembershipLookup`, which the accounts module provides (resolved at the
 * first use, not imported: accounts imports the users module).
 */
@Injectable()
export class UserAudit {
  private readonly logger = new Logger(UserAudit.name);

  constructor(
    private readonly trail: AuditTrail,
    private readonly modules: ModuleRef,
  ) {}

  /** An entry in every account the user belongs to; the target is the user when none is named. */
  async record(
    user: AuditedUser,
    action: AuditAction,
    origin: AuditOrigin,
    target?: { type: string; id: string; label: string | null },
  ): Promise<void> {
    const party = { type: 'user', id: String(user._id), label: user.email };
    const memberships = await this.modules.get(MembershipLookup, { strict: false }).listForUser(String(user._id));
    for (const membership of memberships) {
      await this.trail.appendNow(
        { actor: party, ...origin },
        { accountId: String(membership.accountId), action, target: target ?? party },
      );
    }
  }

  /** As `record`, not awaited (a refused sign-in must not answer later for a known email): a failure is logged. */
  recordInBackground(user: AuditedUser, action: AuditAction, origin: AuditOrigin): void {
    this.record(user, action, origin).catch((error: Error) =>
      this.logger.warn(`Recording ${action} failed: ${error.message}`),
    );
  }
}
