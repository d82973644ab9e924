import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/database/embedded-database';

/**
 * A throwaway Mailpit: a real SMTP server that keeps every mail it receives and shows them through
 * its HTTP API. The test harness starts one per run (global-setup.ts) and every test app sends its
 * mail there (`SMTP_URL`); tests read the mails back with `MailServer`.
 */
export interface MailServerProcess {
  smtpUrl: string;
  apiUrl: string;
  stop(): Promise<void>;
}

export interface MailSummary {
  id: string;
  subject: string;
  to: string[];
  created: string;
}

export interface MailMessage extends MailSummary {
  from: string;
  text: string;
  html: string;
  /** Every http(s) link of the text part, in order. */
  links: string[];
}

/** The Mailpit binary: MAILPIT_BIN, else mailpit on PATH, else $(go env GOPATH)/bin/mailpit, built there once when missing. */
export function mailpitBinary(): string {
  if (process.env.MAILPIT_BIN) return process.env.MAILPIT_BIN;
  try {
    return execFileSync('sh', ['-c', 'command -v mailpit'], { encoding: 'utf8' }).trim();
  } catch {
    // Not on PATH.
  }
  const gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim();
  const binary = join(gopath, 'bin', 'mailpit');
  if (!existsSync(binary)) {
    execFileSync('bash', [join(__dirname, '../../scripts/install-mailpit.sh'), binary], {
      stdio: ['ignore', process.stderr, process.stderr],
    });
  }
  return binary;
}

/** Starts Mailpit on two free ports of 127.0.0.1 (SMTP and HTTP) and waits until its API is ready. */
export async function startMailServer(): Promise<MailServerProcess> {
  const smtpPort = await freePort();
  const httpPort = await freePort();
  let output = '';
  const child: ChildProcess = spawn(
    mailpitBinary(),
    [
      '--smtp',
      `127.0.0.1:${smtpPort}`,
      '--listen',
      `127.0.0.1:${httpPort}`,
      // Every mail of the run is kept (the default keeps the newest 500); tests search by recipient.
      '--max',
      '0',
      '--smtp-auth-accept-any',
      '--smtp-auth-allow-insecure',
      '--disable-version-check',
      '--quiet',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const apiUrl = `http://127.0.0.1:${httpPort}`;
  const failed = new Promise<never>((_, fail) => {
    child.once('error', (error) => fail(new Error(`mailpit did not start (${error.message})`)));
    child.once('exit', (code) => fail(new Error(`mailpit exited (${code}) before it was ready: ${output}`)));
  });
  await Promise.race([failed, untilReady(apiUrl)]);
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    apiUrl,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function untilReady(apiUrl: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${apiUrl}/readyz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`mailpit did not get ready at ${apiUrl} within ${timeoutMs} ms`);
}

interface MailpitAddress {
  Address: string;
  Name: string;
}

/** Reads the mails Mailpit captured, through its API (the run's Mailpit unless another URL is given). */
export class MailServer {
  constructor(readonly apiUrl: string = requiredEnv('MAILPIT_API_URL')) {}

  /** The mails sent to `address`, newest first. */
  async listTo(address: string): Promise<MailSummary[]> {
    const query = new URLSearchParams({ query: `to:"${address}"`, limit: '200' });
    const res = await fetch(`${this.apiUrl}/api/v1/search?${query}`);
    if (!res.ok) throw new Error(`mailpit search answered ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as {
      messages: { ID: string; Subject: string; To: MailpitAddress[]; Created: string }[];
    };
    // Mailpit's search matches substrings: keep the exact recipient only.
    return body.messages
      .map((message) => ({
        id: message.ID,
        subject: message.Subject,
        to: message.To.map((to) => to.Address.toLowerCase()),
        created: message.Created,
      }))
      .filter((message) => message.to.includes(address.toLowerCase()));
  }

  async read(id: string): Promise<MailMessage> {
    const res = await fetch(`${this.apiUrl}/api/v1/message/${encodeURIComponent(id)}`);
    if (!res.ok) throw new Error(`mailpit message ${id} answered ${res.status}: ${await res.text()}`);
    const message = (await res.json()) as {
      ID: string;
      Subject: string;
      From: MailpitAddress;
      To: MailpitAddress[];
      Created?: string;
      Date: string;
      Text: string;
      HTML: string;
    };
    return {
      id: message.ID,
      subject: message.Subject,
      from: message.From.Address,
      to: message.To.map((to) => to.Address.toLowerCase()),
      created: message.Created ?? message.Date,
      text: message.Text,
      html: message.HTML,
      links: message.Text.match(/https?:\/\/[^\s<>"]+/g) ?? [],
    };
  }

  /**
   * The newest mail to `address` whose subject matches, waiting for it: the service sends mail off
   * the request's path, so it may arrive a moment after the answer.
   */
  async waitFor(address: string, subject: RegExp = /./, timeoutMs = 10_000): Promise<MailMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = (await this.listTo(address)).find((mail) => subject.test(mail.subject));
      if (match) return this.read(match.id);
      if (Date.now() > deadline)
        throw new Error(`no mail to ${address} with a subject matching ${subject} within ${timeoutMs} ms`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  /** The token at the end of the first link of the newest matching mail whose path holds `pathPart`. */
  async tokenFrom(address: string, subject: RegExp, pathPart: string): Promise<string> {
    const mail = await this.waitFor(address, subject);
    const link = mail.links.find((candidate) => candidate.includes(pathPart));
    if (!link) throw new Error(`the mail "${mail.subject}" to ${address} holds no link with ${pathPart}: ${mail.text}`);
    return decodeURIComponent(new URL(link).searchParams.get('token') ?? link.split('/').pop()!);
  }
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the test harness's global setup starts Mailpit and sets it`);
  return value;
}
