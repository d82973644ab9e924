import Bowser from 'bowser';
import type { SessionView } from './dto/session.response';
import type { Session } from './session.schema';

/** "Firefox 128 on macOS": what a person recognises in a list of their devices. */
export function deviceOf(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split('.')[0]].filter(Boolean).join(' ');
  const os = parsed.os.name ?? '';
  if (!browser && !os) return userAgent.slice(0, 64);
  return os ? `${browser || 'Unknown browser'} on ${os}` : browser;
}

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
