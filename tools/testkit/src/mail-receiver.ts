import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface ReceivedMail {
  to: string[];
  mail: ParsedMail;
  /** Whether the server told the client it took the mail (a refusal, or a client gone before the answer: false). */
  accepted: boolean;
}

/** How the server answers a mail: take it, refuse it (451, try again later), or answer after a delay. */
export type MailAnswer = 'accept' | 'refuse' | { delayMs: number };

export interface MailReceiver {
  /** For SMTP_URL: smtp://127.0.0.1:<port>. */
  url: string;
  /** Every mail sent to it, in the order received, accepted or not. */
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback (smtp-server, no TLS nor authentication) that parses what it receives
 * (mailparser). `answer` decides per mail from its recipients (default: accept); a delayed mail counts as
 * accepted only if its client is still connected when the answer goes.
 */
export async function startMailReceiver(opts: { answer?: (to: string[]) => MailAnswer; name?: string } = {}): Promise<MailReceiver> {
  const mails: ReceivedMail[] = [];
  const closedSessions = new Set<string>();
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onClose(session) {
      closedSessions.add(session.id);
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const to = session.envelope.rcptTo.map((r) => r.address);
          const answer = opts.answer?.(to) ?? 'accept';
          const received: ReceivedMail = { to, mail, accepted: answer === 'accept' };
          mails.push(received);
          if (answer === 'accept') return callback();
          if (answer === 'refuse') return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
          setTimeout(() => {
            received.accepted = !closedSessions.has(session.id);
            callback();
          }, answer.delayMs);
        })
        .catch(callback);
    },
  });
  // A client killed in the middle of a session resets its connection: the server says so, nothing more.
  smtp.on('error', (err: Error & { code?: string }) => {
    if (err.code !== 'ECONNRESET') console.error(`[${opts.name ?? 'mail receiver'}] SMTP server:`, err);
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}
