import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dkimVerify } from 'mailauth';
import { afterAll, describe, expect, it } from 'vitest';
import { createTransport } from '@/lib/services/mail/transport';
import { parseSettings } from '@/lib/settings';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-dkim-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicKey = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

async function signedMessage(dkimKey: string): Promise<Buffer> {
  const outbox = fs.mkdtempSync(path.join(folder, 'outbox-'));
  const settings = parseSettings({
    SITE_URL: 'https://blog.example.com',
    MAIL_OUTBOX_DIR: outbox,
    DKIM_DOMAIN: 'blog.example.com',
    DKIM_SELECTOR: 'lectern',
    DKIM_PRIVATE_KEY: dkimKey,
  });
  const transport = createTransport(settings, () => 'The Blog');
  await transport.send({ to: { address: 'reader@example.org' }, subject: 'Signed', text: 'Hello.', html: '<p>Hello.</p>' });
  const [file] = fs.readdirSync(outbox);
  return fs.readFileSync(path.join(outbox, file ?? ''));
}

/** DNS as the receiver sees it: the selector's TXT record with the public key. */
const resolver = async (name: string, type: string) => {
  if (type === 'TXT' && name === 'lectern._domainkey.blog.example.com') return [[`v=DKIM1; k=rsa; p=${publicKey}`]];
  throw Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' });
};

describe('DKIM signing by lectern', () => {
  it('signs each message so that a DKIM verifier passes it against the published key', async () => {
    const message = await signedMessage(privateKey);
    const signature = /^DKIM-Signature: [^]*?(?=\r?\n\S)/m.exec(message.toString())?.[0] ?? '';
    expect(signature).toMatch(/\bd=blog\.example\.com;/);
    expect(signature).toMatch(/\bs=lectern;/);
    const { results } = await dkimVerify(message, { resolver });
    expect(results.map((result) => result.status.result)).toEqual(['pass']);
  });

  it('fails verification when signed with another key (the test can fail)', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { results } = await dkimVerify(await signedMessage(other), { resolver });
    expect(results.map((result) => result.status.result)).toEqual(['fail']);
  });
});
