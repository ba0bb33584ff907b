import { describe, expect, it } from 'vitest';
import { readReport } from '@/lib/newsletter/bounces/report';
import { arf, dsn } from '../../../support/reports';

const bounce = 'bounces@blog.example.com';
const token = 'Abcdefghijklmnopqrstuvwxyz012345';
const verp = `bounces+${token}@blog.example.com`;

describe('readReport', () => {
  it('reads a failed delivery (5.x.x) as a hard bounce, its token from the address it came to', async () => {
    expect(await readReport(dsn({ to: verp, recipient: 'gone@example.org', status: '5.2.0', id: 'one' }), bounce)).toEqual({
      readable: true,
      kind: 'hard',
      token,
      detail: '5.2.0 smtp; 550 5.2.0 mailbox disabled',
      reportId: '<one@mx.example.org>',
    });
  });

  it('reads a delay (4.x.x) as a soft bounce', async () => {
    expect(await readReport(dsn({ to: verp, recipient: 'full@example.org', status: '4.2.2' }), bounce)).toMatchObject({ readable: true, kind: 'soft', token });
  });

  it('finds the token in the returned headers when the report went to a plain address, and in the envelope the listener saw', async () => {
    expect(await readReport(dsn({ to: 'postmaster@blog.example.com', recipient: 'gone@example.org', status: '5.1.1', verp }), bounce)).toMatchObject({ token });
    expect(await readReport(dsn({ to: 'postmaster@blog.example.com', recipient: 'gone@example.org', status: '5.1.1' }), bounce, [verp])).toMatchObject({
      token,
    });
  });

  it('reads a feedback-loop report as a complaint about the message whose Return-Path it returns', async () => {
    expect(await readReport(arf({ to: 'fbl@blog.example.com', verp, id: 'c' }), bounce)).toEqual({
      readable: true,
      kind: 'complaint',
      token,
      detail: 'feedback report: abuse',
      reportId: '<c@mailbox.example.org>',
    });
  });

  it('takes no token that is not one of this bounce address, and reads what is not a report as unreadable', async () => {
    expect(await readReport(dsn({ to: `other+${token}@blog.example.com`, recipient: 'x@example.org', status: '5.1.1' }), bounce)).toMatchObject({
      token: undefined,
    });
    expect(await readReport(Buffer.from('From: a@example.org\r\nSubject: out of office\r\n\r\nAway.\r\n'), bounce)).toMatchObject({
      readable: false,
      reason: 'neither a delivery status notification nor a feedback report',
    });
  });
});
