/** Messages that come back to a bounce address, as mail servers write them (CRLF line ends). */
const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/** A delivery status notification (RFC 3464) as Postfix writes one, for `status` (5.x.x: failed, 4.x.x: delayed). */
export function dsn(options: { to: string; recipient: string; status: string; verp?: string; id?: string }): Buffer {
  const failed = options.status.startsWith('5.');
  return Buffer.from(
    crlf(`Return-Path: <>
From: MAILER-DAEMON@mx.example.org (Mail Delivery System)
To: ${options.to}
Subject: ${failed ? 'Undelivered Mail Returned to Sender' : 'Delayed Mail (still being retried)'}
Message-ID: <${options.id ?? `dsn-${Math.random().toString(36).slice(2)}`}@mx.example.org>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="DSN"

--DSN
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.org.

--DSN
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
Arrival-Date: Mon, 1 Jun 2026 10:00:00 +0000

Final-Recipient: rfc822; ${options.recipient}
Original-Recipient: rfc822;${options.recipient}
Action: ${failed ? 'failed' : 'delayed'}
Status: ${options.status}
Diagnostic-Code: smtp; ${failed ? '550' : '450'} ${options.status} mailbox
    ${failed ? 'disabled' : 'full'}

--DSN
Content-Type: text/rfc822-headers

Return-Path: <${options.verp ?? 'someone@example.com'}>
From: The Blog <no-reply@blog.example.com>
To: ${options.recipient}
Subject: A post

--DSN--
`),
  );
}

/** A feedback-loop report (ARF, RFC 5965): a reader pressed "spam" on a message whose headers are returned. */
export function arf(options: { to: string; verp: string; id?: string }): Buffer {
  return Buffer.from(
    crlf(`From: feedback@mailbox.example.org
To: ${options.to}
Subject: FW: A post
Message-ID: <${options.id ?? `arf-${Math.random().toString(36).slice(2)}`}@mailbox.example.org>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"

--ARF
Content-Type: text/plain

This is an email abuse report for an email message received from IP 192.0.2.1.

--ARF
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: SomeGenerator/1.0
Version: 1

--ARF
Content-Type: message/rfc822
Content-Disposition: inline

Return-Path: <${options.verp}>
From: The Blog <no-reply@blog.example.com>
To: reader@mailbox.example.org
Subject: A post

The post.
--ARF--
`),
  );
}
