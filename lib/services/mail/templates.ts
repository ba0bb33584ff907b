import { absoluteUrl } from '../../runtime/site';
import { site } from '../../content';
import { escapeHtml } from '../../http/html';
import { formatMoment } from '../../products/when';
import type { OutgoingMail } from '../store/types';
import { newsletterHeaders, type UnsubscribeLinks } from './list-headers';

export type { UnsubscribeLinks } from './list-headers';

type Address = { name?: string; address: string };

/** One message in plain text and HTML from the same paragraphs and links. */
function compose(options: {
  to: Address;
  replyTo?: Address;
  subject: string;
  paragraphs: string[];
  /** A list of links (the files of an order), each on its own line. */
  links?: { label: string; url: string }[];
  action?: { label: string; url: string };
  footer: string[];
  headers?: Record<string, string>;
}): OutgoingMail {
  const { name } = site();
  const home = absoluteUrl('/');
  const links = options.links ?? [];
  const text = [
    ...options.paragraphs,
    ...(links.length > 0 ? [links.map((link) => `${link.label}:\n${link.url}`).join('\n\n')] : []),
    ...(options.action ? [`${options.action.label}: ${options.action.url}`] : []),
    '--',
    ...options.footer,
    `${name} · ${home}`,
  ].join('\n\n');
  const html = `<!DOCTYPE html><html><body style="font-family:system-ui,sans-serif;line-height:1.6;color:#1d1e22;max-width:36rem;overflow-wrap:anywhere">
${options.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`).join('\n')}
${links.length > 0 ? `<ul>${links.map((link) => `<li><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></li>`).join('')}</ul>` : ''}
${options.action ? `<p><a href="${escapeHtml(options.action.url)}" style="display:inline-block;padding:.5rem 1rem;background:#1d5fbf;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(options.action.label)}</a></p><p style="font-size:.85rem;color:#5b5e66;overflow-wrap:anywhere;word-break:break-all">${escapeHtml(options.action.url)}</p>` : ''}
<hr style="border:none;border-top:1px solid #dedbd2">
${options.footer.map((line) => `<p style="font-size:.85rem;color:#5b5e66">${escapeHtml(line)}</p>`).join('\n')}
<p style="font-size:.85rem;color:#5b5e66"><a href="${escapeHtml(home)}">${escapeHtml(name)}</a></p>
</body></html>`;
  return {
    to: options.to,
    ...(options.replyTo ? { replyTo: options.replyTo } : {}),
    subject: options.subject,
    text,
    html,
    ...(options.headers ? { headers: options.headers } : {}),
  };
}

export function confirmSubscriptionMail(to: Address, links: { confirm: string; unsubscribe: UnsubscribeLinks }): OutgoingMail {
  const { name } = site();
  return compose({
    to,
    subject: `Confirm your subscription to ${name}`,
    paragraphs: [
      `Someone, hopefully you, asked to receive new posts from ${name} at ${to.address}.`,
      'Confirm with the link below. If it was not you, ignore this message and nothing more will be sent.',
    ],
    action: { label: 'Confirm my subscription', url: links.confirm },
    footer: [`Unsubscribe: ${links.unsubscribe.page}`],
    headers: newsletterHeaders(links.unsubscribe),
  });
}

export type SupportFields = { id: string; name: string; email: string; subject: string; message: string };

export function supportOwnerMail(owner: string, fields: SupportFields): OutgoingMail {
  return compose({
    to: { address: owner },
    replyTo: { name: fields.name, address: fields.email },
    subject: `[Support] ${fields.subject}`,
    paragraphs: [`From: ${fields.name} <${fields.email}>`, `Subject: ${fields.subject}`, fields.message],
    footer: [`Message ${fields.id}. Reply to this email to answer ${fields.name}.`],
  });
}

/**
 * The sender's receipt. Anyone can type any address into the support form, so
 * the receipt carries none of what was typed (no name, subject or message):
 * a fixed text and the message id, nothing the site could be made to say.
 */
export function supportReceiptMail(fields: Pick<SupportFields, 'id' | 'email'>): OutgoingMail {
  const { name } = site();
  return compose({
    to: { address: fields.email },
    subject: `We received your message to ${name}`,
    paragraphs: [
      `Thank you for writing to ${name}. Your message has arrived and the answer will come by email.`,
      'If you did not write to us, someone typed your address into our support form: ignore this email, nothing more will be sent.',
    ],
    footer: [`Reference ${fields.id}.`],
  });
}

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).format(
    amount / 10 ** (new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2),
  );

/** A moment as a person reads it, in the site's time zone: "Wednesday 10 February 2027". */
export function longDate(millis: number): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeZone: site().timezone }).format(millis).replace(',', '');
}

/** The download links of an order: each file by name, until when they work and how often each downloads. */
export type DownloadLinks = { files: { name: string; url: string }[]; expires: number; limit: number };

function downloadParagraph(links: DownloadLinks): string {
  const until = longDate(links.expires);
  const fresh = `Ask for fresh links at ${absoluteUrl('/downloads')}.`;
  if (links.files.length === 1) return `Your download link below works until ${until}, for ${links.limit} downloads. Need it again later? ${fresh}`;
  return `Your download links below work until ${until}, ${links.limit} downloads each. Need them again later? ${fresh}`;
}

export function orderReceiptMail(to: Address, order: { id: string; title: string; amount: number; currency: string; downloads?: DownloadLinks }): OutgoingMail {
  const { name } = site();
  const files = order.downloads?.files ?? [];
  return compose({
    to,
    subject: `Your receipt from ${name}: ${order.title}`,
    paragraphs: [
      `Thank you for your purchase of ${order.title}.`,
      `Paid: ${money(order.amount, order.currency)}. Stripe mails the invoice separately.`,
      ...(order.downloads && files.length > 0 ? [downloadParagraph(order.downloads)] : []),
      'Questions? Reply through the support page.',
    ],
    links: files.map((file) => ({ label: file.name, url: file.url })),
    action: { label: 'Support', url: absoluteUrl('/support') },
    footer: ['You receive this email because you bought something on this site.'],
  });
}

/** Fresh links to everything an address bought (the resend page); nothing typed into the form is in it. */
export function purchasesAgainMail(to: Address, orders: { id: string; title: string; downloads: DownloadLinks }[]): OutgoingMail {
  const { name } = site();
  const first = orders[0]?.downloads;
  return compose({
    to,
    subject: `Your purchases from ${name}`,
    paragraphs: [
      'Here are fresh download links for everything bought with this address, as asked on our site.',
      ...(first ? [downloadParagraph(first)] : []),
      "If you did not ask for them, someone typed your address into our form; the links only reach you, so there's nothing to do.",
    ],
    links: orders.flatMap((order) => order.downloads.files.map((file) => ({ label: `${order.title}: ${file.name}`, url: file.url }))),
    footer: ['You receive this email because this address bought something on this site.'],
  });
}

/** What every mail about a booking says of it: its session's meetings in words, how to join, and its calendar file. */
export type BookingDetails = {
  id: string;
  title: string;
  /** The session by its days, in words: "Sunday 1 March 2099 and Monday 2 March 2099". */
  session: string;
  /** Each meeting in the site's time zone: "Wednesday 10 February 2027, 09:00–13:00 CET". */
  meetings: string[];
  seats: number;
  /** How to join (the product's `joining`), for people who booked only. */
  joining?: string;
  /** The booking's .ics (lib/bookings/calendar.ts). */
  calendar: string;
};

function meetingsParagraph(booking: BookingDetails): string {
  const seats = `${booking.seats} seat${booking.seats === 1 ? '' : 's'}`;
  return booking.meetings.length === 1
    ? `${booking.title} (${seats}): ${booking.meetings[0]}.`
    : `${booking.title} (${seats}), in ${booking.meetings.length} meetings:\n${booking.meetings.map((meeting) => `- ${meeting}`).join('\n')}`;
}

function joiningParagraph(booking: BookingDetails): string[] {
  return booking.joining ? [`How to join: ${booking.joining}`] : [];
}

/** A calendar file's name from the training's title ("fixture-training.ics"): what a buyer's mail program shows. */
function calendarFilename(title: string): string {
  return `${
    title
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'booking'
  }.ics`;
}

/** The calendar file of a booking, one event per meeting; a calendar that has an older version updates it. */
function calendarAttachment(booking: Pick<BookingDetails, 'title' | 'calendar'>, method: 'PUBLISH' | 'CANCEL' = 'PUBLISH') {
  return [{ filename: calendarFilename(booking.title), contentType: `text/calendar; charset=utf-8; method=${method}`, content: booking.calendar }];
}

export function bookingReceiptMail(
  to: Address,
  booking: BookingDetails & { amount: number; currency: string; manageUrl: string; cancelUntil: number; moveUntil: number },
): OutgoingMail {
  const { name } = site();
  return {
    ...compose({
      to,
      subject: `Your booking at ${name}: ${booking.title}`,
      paragraphs: [
        `Thank you for booking ${meetingsParagraph(booking)}`,
        ...joiningParagraph(booking),
        `Paid: ${money(booking.amount, booking.currency)}. Stripe mails the invoice separately. The attached calendar file adds every meeting to your calendar.`,
        `Free cancellation with a full refund until ${formatMoment(booking.cancelUntil)}. After that, and until the session starts (${formatMoment(booking.moveUntil)}), you can move your seats to a later session at no cost. Keep this email: the button below does both.`,
      ],
      action: { label: 'Cancel or move my booking', url: booking.manageUrl },
      footer: ['You receive this email because you booked a training session on this site.'],
    }),
    attachments: calendarAttachment(booking),
  };
}

export function bookingMovedMail(to: Address, booking: BookingDetails & { from: string; manageUrl: string }): OutgoingMail {
  const { name } = site();
  return {
    ...compose({
      to,
      subject: `Booking moved at ${name}: ${booking.title}`,
      paragraphs: [
        `Your booking has moved from the session of ${booking.from} to ${meetingsParagraph(booking)}`,
        ...joiningParagraph(booking),
        'The attached calendar file replaces the meetings of your earlier session in your calendar. Nothing was charged for the move.',
      ],
      action: { label: 'See my booking', url: booking.manageUrl },
      footer: ['You receive this email because a booking on this site was moved with its link.'],
    }),
    attachments: calendarAttachment(booking),
  };
}

export function bookingReminderMail(to: Address, booking: BookingDetails & { startsIn: string }): OutgoingMail {
  return {
    ...compose({
      to,
      subject: `Starting ${booking.startsIn}: ${booking.title}`,
      paragraphs: [
        `A reminder: your booking is for ${meetingsParagraph(booking)}`,
        ...joiningParagraph(booking),
        'The attached calendar file has every meeting. To cancel or move the booking, use the link in your booking email.',
      ],
      footer: ['You receive this email because you booked a training session on this site.'],
    }),
    attachments: calendarAttachment(booking),
  };
}

export function sessionFullRefundMail(to: Address, payment: { title: string; start: string; seats: number; amount: number; currency: string }): OutgoingMail {
  return compose({
    to,
    subject: `Session full, payment refunded: ${payment.title}`,
    paragraphs: [
      `Your payment for ${payment.seats} seat${payment.seats === 1 ? '' : 's'} in ${payment.title}, starting ${payment.start}, arrived after the seats held for you had lapsed, and the session is now full. We are sorry: there is no booking.`,
      `Your payment of ${money(payment.amount, payment.currency)} has been refunded in full to the card that paid; banks usually show it within 5 to 10 days.`,
      'Another session may still have seats: see the pricing page.',
    ],
    action: { label: 'See the sessions', url: absoluteUrl('/pricing') },
    footer: ['You receive this email because you paid for a training session on this site.'],
  });
}

export function bookingCancelledMail(
  to: Address,
  booking: { title: string; session: string; amount: number; currency: string; calendar?: string },
): OutgoingMail {
  const { name } = site();
  const mail = compose({
    to,
    subject: `Booking cancelled at ${name}: ${booking.title}`,
    paragraphs: [
      `Your booking of ${booking.title} on ${booking.session} is cancelled.`,
      `A refund of ${money(booking.amount, booking.currency)} is on its way to your card.`,
      ...(booking.calendar ? ['The attached calendar file removes its meetings from your calendar.'] : []),
    ],
    footer: ['You receive this email because a booking on this site was cancelled with its link.'],
  });
  return booking.calendar ? { ...mail, attachments: calendarAttachment({ title: booking.title, calendar: booking.calendar }, 'CANCEL') } : mail;
}
