import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { createTransport, mailFrom } from '@/lib/services/mail/transport';
import { startSmtp } from '../../../support/smtp';

const smtp = await startSmtp();
afterAll(() => smtp.close());

const mail = {
  to: { name: 'Reader', address: 'reader@example.com' },
  replyTo: { address: 'owner@example.com' },
  subject: 'Hello',
  text: 'Plain words',
  html: '<p>Plain words</p>',
  headers: { 'X-Lectern-Test': 'yes' },
};

describe('mailFrom', () => {
  it('is the site at no-reply@ its host by default, MAIL_FROM otherwise, with or without a name', () => {
    expect(mailFrom(parseSettings({ SITE_URL: 'https://blog.example.com' }), 'The Blog')).toEqual({ name: 'The Blog', address: 'no-reply@blog.example.com' });
    expect(mailFrom(parseSettings({ MAIL_FROM: 'news@example.com' }), 'The Blog')).toEqual({ name: 'The Blog', address: 'news@example.com' });
    expect(mailFrom(parseSettings({ MAIL_FROM: '"Mara" <mara@example.com>' }), 'The Blog')).toEqual({ name: 'Mara', address: 'mara@example.com' });
  });
});

describe('createTransport', () => {
  it('sends by SMTP to SMTP_URL, from MAIL_FROM, with the reply address and headers', async () => {
    const transport = createTransport(parseSettings({ SMTP_URL: smtp.url, MAIL_FROM: 'Site <site@example.com>' }), () => 'unused');
    expect(transport.kind).toBe('smtp');
    await transport.send(mail);
    const received = await smtp.waitFor((message) => message.subject === 'Hello');
    expect(received.envelopeTo).toEqual(['reader@example.com']);
    expect(received.from).toMatchObject({ name: 'Site', address: 'site@example.com' });
    expect(received.replyTo?.[0]?.address).toBe('owner@example.com');
    expect(received.text?.trim()).toBe('Plain words');
    expect(received.headers.find((header) => header.key === 'x-lectern-test')?.value).toBe('yes');
  });

  it('writes one .eml file per message to MAIL_OUTBOX_DIR when SMTP_URL is unset', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-outbox-'));
    const transport = createTransport(parseSettings({ MAIL_OUTBOX_DIR: folder, SITE_URL: 'https://blog.example.com' }), () => 'The Blog');
    expect(transport.kind).toBe('outbox');
    await transport.send(mail);
    await transport.send({ ...mail, subject: 'Again' });
    const files = fs.readdirSync(folder);
    expect(files).toHaveLength(2);
    expect(files.every((file) => file.endsWith('.eml'))).toBe(true);
    const written = files.map((file) => fs.readFileSync(path.join(folder, file), 'utf8')).join('\n');
    expect(written).toMatch(/^From: The Blog <no-reply@blog\.example\.com>$/m);
    expect(written).toMatch(/^Subject: Again$/m);
    fs.rmSync(folder, { recursive: true });
  });

  it('syncs each .eml file and then its folder to disk before the send resolves, the message identified by its outbox id', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-outbox-'));
    const transport = createTransport(parseSettings({ MAIL_OUTBOX_DIR: folder, SITE_URL: 'https://blog.example.com' }), () => 'The Blog');
    // Which path each synced descriptor was opened for (a closed descriptor's number is used again).
    const { openSync, fsyncSync } = fs;
    const openedAs = new Map<number, string>();
    const synced: string[] = [];
    const opened = vi.spyOn(fs, 'openSync').mockImplementation((...args: Parameters<typeof openSync>) => {
      const descriptor = openSync(...args);
      openedAs.set(descriptor, String(args[0]));
      return descriptor;
    });
    const syncs = vi.spyOn(fs, 'fsyncSync').mockImplementation((descriptor: number) => {
      synced.push(openedAs.get(descriptor) ?? '?');
      fsyncSync(descriptor);
    });
    try {
      await transport.send(mail, 'entry-1');
      const [file] = fs.readdirSync(folder);
      expect(synced).toEqual([path.join(folder, file!), folder]);
      expect(file).toMatch(/-entry-1\.eml$/);
      expect(fs.readFileSync(path.join(folder, file!), 'utf8')).toMatch(/^Message-ID: <entry-1@blog\.example\.com>$/m);
    } finally {
      opened.mockRestore();
      syncs.mockRestore();
      fs.rmSync(folder, { recursive: true });
    }
  });

  it('puts the outbox folder under DATA_DIR by default', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-data-'));
    await createTransport(parseSettings({ DATA_DIR: data }), () => 'The Blog').send(mail);
    expect(fs.readdirSync(path.join(data, 'outbox'))).toHaveLength(1);
    fs.rmSync(data, { recursive: true });
  });
});
