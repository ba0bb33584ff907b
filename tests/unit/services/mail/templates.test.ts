import { describe, expect, it } from 'vitest';
import { absoluteUrl } from '@/lib/runtime/site';
import { site } from '@/lib/content';
import {
  bookingCancelledMail,
  bookingReceiptMail,
  confirmSubscriptionMail,
  orderReceiptMail,
  sessionFullRefundMail,
  supportOwnerMail,
  supportReceiptMail,
} from '@/lib/services/mail/templates';

const unsubscribe = { page: 'https://example.com/subscribe/unsubscribe?token=t', oneClick: 'https://example.com/api/subscribe/unsubscribe?token=t' };

describe('mail templates', () => {
  it('asks a new subscriber to confirm, with one-click unsubscribe headers (RFC 8058)', () => {
    const mail = confirmSubscriptionMail({ address: 'reader@example.com' }, { confirm: 'https://example.com/subscribe/confirm?token=c', unsubscribe });
    expect(mail.subject).toBe(`Confirm your subscription to ${site().name}`);
    expect(mail.headers).toEqual({ 'List-Unsubscribe': `<${unsubscribe.oneClick}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    expect(mail.text).toContain('Confirm my subscription: https://example.com/subscribe/confirm?token=c');
    expect(mail.text).toContain(`Unsubscribe: ${unsubscribe.page}`);
    expect(mail.html).toContain('href="https://example.com/subscribe/confirm?token=c"');
    expect(mail.text.endsWith(`${site().name} · ${absoluteUrl('/')}`)).toBe(true);
  });

  it("escapes what a visitor typed in the HTML of the owner's copy, and replies to the visitor", () => {
    const mail = supportOwnerMail('owner@example.com', {
      id: 'm1',
      name: 'Eve <script>',
      email: 'eve@example.com',
      subject: 'Hi & bye',
      message: '<img src=x onerror=alert(1)>\nsecond line',
    });
    expect(mail.to).toEqual({ address: 'owner@example.com' });
    expect(mail.replyTo).toEqual({ name: 'Eve <script>', address: 'eve@example.com' });
    expect(mail.subject).toBe('[Support] Hi & bye');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;<br>second line');
    expect(mail.text).toContain('<img src=x onerror=alert(1)>\nsecond line');
  });

  it('says nothing the sender typed in the receipt but its reference', () => {
    const mail = supportReceiptMail({ id: 'm2', email: 'anyone@example.com' });
    expect(mail.to).toEqual({ address: 'anyone@example.com' });
    expect(mail.replyTo).toBeUndefined();
    expect(mail.text).toContain('Reference m2.');
  });

  it('lists an order’s download links by file name, with until when they work, and links to the resend page', () => {
    const mail = orderReceiptMail(
      { address: 'a@example.com' },
      {
        id: 'o1',
        title: 'Guide',
        amount: 4900,
        currency: 'EUR',
        downloads: { files: [{ name: 'guide.pdf', url: 'https://example.com/downloads/o1/0?x=1' }], expires: Date.parse('2030-01-31T12:00:00Z'), limit: 5 },
      },
    );
    expect(mail.text).toContain('guide.pdf:\nhttps://example.com/downloads/o1/0?x=1');
    expect(mail.text).toMatch(/Your download link below works until \w+day 31 January 2030, for 5 downloads\. Need it again later\?/);
    expect(mail.text).toContain('/downloads.');
    expect(mail.html).toContain('<a href="https://example.com/downloads/o1/0?x=1">guide.pdf</a>');
  });

  it('speaks of each of several links', () => {
    const files = ['guide.pdf', 'guide.epub'].map((name, index) => ({ name, url: `https://example.com/downloads/o1/${index}?x=1` }));
    const mail = orderReceiptMail(
      { address: 'a@example.com' },
      { id: 'o1', title: 'Guide', amount: 4900, currency: 'EUR', downloads: { files, expires: Date.parse('2030-01-31T12:00:00Z'), limit: 5 } },
    );
    expect(mail.text).toMatch(/Your download links below work until \w+day 31 January 2030, 5 downloads each\. Need them again later\?/);
  });

  it("writes amounts in the currency's own units", () => {
    expect(orderReceiptMail({ address: 'a@example.com' }, { id: 'o1', title: 'Guide', amount: 4900, currency: 'EUR' }).text).toContain(
      'Thank you for your purchase of Guide.\n\nPaid: €49.00.',
    );
    expect(orderReceiptMail({ address: 'a@example.com' }, { id: 'o2', title: 'Guide', amount: 4900, currency: 'JPY' }).text).toContain('Paid: ¥4,900.');
    const booking = { id: 'bk1', title: 'Course', session: 'Tuesday 1 January 2030', start: '2030-01-01', seats: 2, amount: 98000, currency: 'EUR' };
    const receipt = bookingReceiptMail(
      { address: 'a@example.com' },
      {
        ...booking,
        meetings: ['Tuesday 1 January 2030, 09:00–13:00 EST'],
        calendar: 'BEGIN:VCALENDAR',
        manageUrl: 'https://example.com/booking/cancel?token=x',
        cancelUntil: Date.parse('2029-12-25T14:00:00Z'),
        moveUntil: Date.parse('2030-01-01T14:00:00Z'),
      },
    );
    expect(receipt.text).toContain('Course (2 seats): Tuesday 1 January 2030, 09:00–13:00 EST.');
    expect(receipt.text).not.toContain('bk1');
    expect(receipt.text).toContain('Free cancellation with a full refund until Tuesday 25 December 2029, 15:00 CET.');
    expect(receipt.text).toContain('Cancel or move my booking: https://example.com/booking/cancel?token=x');
    expect(receipt.attachments).toEqual([{ filename: 'course.ics', contentType: 'text/calendar; charset=utf-8; method=PUBLISH', content: 'BEGIN:VCALENDAR' }]);
    expect(sessionFullRefundMail({ address: 'a@example.com' }, { ...booking, seats: 1 }).text).toContain('1 seat in Course');
    const cancelled = bookingCancelledMail({ address: 'a@example.com' }, booking).text;
    expect(cancelled).toContain('Your booking of Course on Tuesday 1 January 2030 is cancelled.');
    expect(cancelled).toContain('A refund of €980.00 is on its way');
    expect(cancelled).not.toContain('bk1');
  });
});
