import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { freePort } from '../helpers/own-redis.js';
import { loadConfig } from '../../src/config/env.js';

// With SMTP_URL set, sign-up's verification mail goes out through a real SMTP server (one the
// test runs), and the link in it verifies the account.

interface Received {
  from: string;
  to: string[];
  subject: string;
  text: string;
}
const inbox: Received[] = [];
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, done) {
    simpleParser(stream)
      .then((mail) => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: mail.subject ?? '',
          text: mail.text ?? '',
        });
        done();
      })
      .catch(done);
  },
});
const port = await freePort();
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));

const smtpUrl = `smtp://127.0.0.1:${port}`;
const h = await startHarness({ env: { SMTP_URL: smtpUrl, MAIL_FROM: 'Voice <no-reply@voice.test>', PUBLIC_BASE_URL: 'http://voice.test' } });
t.teardown(h.close);

t.test('SMTP_URL is read from the environment', async (t) => {
  t.equal(loadConfig({ SMTP_URL: smtpUrl }).SMTP_URL, smtpUrl);
  t.throws(() => loadConfig({ SMTP_URL: 'not a url' }), /SMTP_URL/);
});

t.test('sign-up mails a verification link through SMTP, and the link verifies the account', async (t) => {
  const signup = await h.app.inject({ method: 'POST', url: '/console/auth/signup', payload: { email: 'person@example.com', password: 'a long password 123' } });
  t.equal(signup.statusCode, 201);
  t.equal(inbox.length, 1);
  const [mail] = inbox;
  t.equal(mail.from, 'no-reply@voice.test');
  t.same(mail.to, ['person@example.com']);
  t.equal(mail.subject, 'Verify your e-mail');
  const link = /(http:\/\/voice\.test\/console\/auth\/verify-email\?token=\S+)/.exec(mail.text)?.[1];
  t.ok(link, 'the mail carries a link on PUBLIC_BASE_URL');

  const url = new URL(link!);
  const res = await h.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { email_verified: true });
  const [row] = await h.ctx.sql`select email_verified from accounts where email = 'person@example.com'`;
  t.equal(row.email_verified, true);
  const again = await h.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
  t.equal(again.statusCode, 404, 'a link works once');
});
