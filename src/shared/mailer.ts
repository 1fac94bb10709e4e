import { createTransport } from 'nodemailer';
import type { Logger } from './logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** Development transport: writes the mail to the log (the contract's development mail transport). */
export function logMailer(log: Logger): Mailer {
  return {
    async send(mail) {
      log.info({ mail_subject: mail.subject }, `mail for account: ${mail.text}`);
    },
  };
}

/** Keeps mails in memory (tests read verification tokens from here). */
export class MemoryMailer implements Mailer {
  readonly sent: Mail[] = [];
  async send(mail: Mail): Promise<void> {
    this.sent.push(mail);
  }
}

/**
 * Real mail through SMTP (SMTP_URL, e.g. `smtps://user:pass@mail.example.com:465` or
 * `smtp://relay:25`). A failure to send is thrown: the caller decides whether it is fatal.
 */
export function smtpMailer(url: string, from: string, log: Logger): Mailer {
  const transport = createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      log.info({ mail_subject: mail.subject }, 'mail sent');
    },
  };
}
