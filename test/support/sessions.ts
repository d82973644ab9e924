import { generate } from 'otplib';
import type { HttpClient, HttpResponse, RequestOptions } from './http';
import type { TestUser } from './auth';

/**
 * The `sid=<token>` pair of a response's Set-Cookie (`__Host-sid=<token>` over https), as a browser
 * would send it back; null when none.
 */
export function sessionCookie(res: HttpResponse): string | null {
  for (const header of res.headers.getSetCookie()) {
    const match = /^((?:__Host-)?sid)=([^;]*)/.exec(header);
    if (match && match[2] !== '') return `${match[1]}=${match[2]}`;
  }
  return null;
}

/** A browser's view of one session: its cookie, sent with the service's own Origin on every request. */
export class Browser {
  constructor(
    readonly http: HttpClient,
    public cookie: string,
    readonly origin: string = http.baseUrl,
  ) {}

  /** Takes a new cookie from a response that set one (step-up, password change, a factor added or removed). */
  keep(res: HttpResponse): HttpResponse {
    const cookie = sessionCookie(res);
    if (cookie) this.cookie = cookie;
    return res;
  }

  options(extra: RequestOptions = {}): RequestOptions {
    return { ...extra, headers: { cookie: this.cookie, origin: this.origin, ...(extra.headers ?? {}) } };
  }

  get(path: string) {
    return this.http.get(path, this.options());
  }
  post(path: string, body?: unknown) {
    return this.http.post(path, body, this.options()).then((res) => this.keep(res));
  }
  put(path: string, body?: unknown) {
    return this.http.put(path, body, this.options()).then((res) => this.keep(res));
  }
  patch(path: string, body?: unknown) {
    return this.http.patch(path, body, this.options()).then((res) => this.keep(res));
  }
  delete(path: string, body?: unknown) {
    return this.http.request('DELETE', path, body, this.options()).then((res) => this.keep(res));
  }
}

/** Signs in (POST /api/v1/sessions) and answers the browser holding the session; throws on any other answer than 201. */
export async function signIn(
  http: HttpClient,
  user: Pick<TestUser, 'email' | 'password'>,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Browser> {
  const res = await http.post(
    '/api/v1/sessions',
    { email: user.email, password: user.password, ...extra },
    { headers },
  );
  const cookie = sessionCookie(res);
  if (res.status !== 201 || !cookie) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return new Browser(http, cookie);
}

/**
 * The TOTP code of `secret` `steps` time steps from now (30 s each): the service accepts one step
 * either side, so a test has three codes to use (-1, 0, 1), each once.
 */
export async function totp(secret: string, steps = 0): Promise<string> {
  // Not in the last 2 s of a step: the code must still be within one step when the service checks it.
  const intoStep = Date.now() % 30_000;
  if (intoStep > 28_000) await new Promise((resolve) => setTimeout(resolve, 30_100 - intoStep));
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
}

/** Turns TOTP on for the browser's user; answers the secret and the recovery codes. */
export async function enableTotp(browser: Browser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const enrol = await browser.post('/api/v1/me/mfa/totp');
  if (enrol.status !== 201) throw new Error(`TOTP enrolment failed: ${enrol.status} ${enrol.text}`);
  const verified = await browser.post('/api/v1/me/mfa/totp/verify', { code: await totp(enrol.body.secret, -1) });
  if (verified.status !== 200) throw new Error(`TOTP verification failed: ${verified.status} ${verified.text}`);
  return { secret: enrol.body.secret, recoveryCodes: verified.body.recoveryCodes };
}
