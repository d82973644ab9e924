import Bowser from 'bowser';

/** "Firefox 128 on macOS": what a person recognises in a list of their devices. */
export function deviceOf(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split('.')[0]].filter(Boolean).join(' ');
  const os = parsed.os.name ?? '';
  if (!browser && !os) return userAgent.slice(0, 64);
  return os ? `${browser || 'Unknown browser'} on ${os}` : browser;
}
