import { deviceOf } from '../common/http/device-of';
import type { SessionView } from './dto/session.response';
import type { Session } from './session.schema';

/** A session as its user sees it: never the token or its hash. */
export function toSessionView(session: Session, current: boolean): SessionView {
  return {
    id: String(session._id),
    current,
    device: deviceOf(session.userAgent),
    userAgent: session.userAgent ?? null,
    ip: session.ip ?? null,
    assurance: session.assurance,
    createdAt: new Date(session.signedInAt).toISOString(),
    lastSeenAt: new Date(session.lastSeenAt).toISOString(),
  };
}
