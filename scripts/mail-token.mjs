// Prints the token of the newest mail in a service's mail folder (DATA_DIR/mail, where mails go
// without SMTP_URL) sent to <email> whose link holds <path>, waiting up to 10 s for it (mails are sent
// off the request's path): `node scripts/mail-token.mjs <folder> <email> <path>`, e.g.
// `node scripts/mail-token.mjs .data/mail ada@example.com /verify-email`.
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

const [folder, email, path] = process.argv.slice(2);
if (!folder || !email || !path) throw new Error('usage: mail-token.mjs <mail folder> <email> <link path>');

/** The message's text as written: quoted-printable soft line breaks joined, =XX escapes decoded. */
const decoded = (eml) =>
  eml.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));

function find() {
  let files = [];
  try {
    files = readdirSync(folder)
      .filter((name) => name.endsWith('.eml'))
      .sort()
      .reverse();
  } catch {
    return null;
  }
  for (const name of files) {
    const text = decoded(readFileSync(join(folder, name), 'utf8'));
    const to = /^To: (.*)$/im.exec(text)?.[1] ?? '';
    if (!to.toLowerCase().includes(email.toLowerCase())) continue;
    const token = new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\?token=([A-Za-z0-9_-]+)`).exec(text)?.[1];
    if (token) return token;
  }
  return null;
}

const deadline = Date.now() + 10_000;
for (;;) {
  const token = find();
  if (token) {
    process.stdout.write(token);
    break;
  }
  if (Date.now() > deadline) {
    console.error(`mail-token: no mail to ${email} with a ${path} link in ${folder}`);
    process.exit(1);
  }
  await sleep(100);
}
