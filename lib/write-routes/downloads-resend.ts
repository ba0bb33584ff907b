import { z } from 'zod';
import { clock } from '../runtime/site';
import { downloadLinks } from '../downloads/grant';
import { productBySlug } from '../products';
import { writeRouteAddresses } from '../routes/manifest';
import { purchasesAgainMail } from '../services/mail/templates';
import { email, honeypot } from './fields';
import { defineWriteRoute, type WriteContext, type WriteResult } from './definition';

export const RESEND_RESULT_PAGE = '/downloads/sent';

/** One mail of fresh links per address at most this often, whoever asks. */
export const RESEND_COOLDOWN_MS = 15 * 60 * 1000;

/** The same answer whether or not the address bought anything: the form tells nobody who is a customer. */
const accepted: WriteResult = {
  ok: true,
  status: 202,
  body: { status: 'received', message: 'If this address bought something here, a mail with fresh download links is on its way to it.' },
  redirect: RESEND_RESULT_PAGE,
};

const schema = z.strictObject({ email, website: honeypot });

/**
 * Fresh links to every file the address's paid orders include, in one mail to the address the
 * orders were paid with (as Stripe gave it, never the typed text), at most once per cooldown.
 * An address with no orders takes its turn too, so both take the same path.
 */
async function resendPurchases(input: z.output<typeof schema>, { services, settings }: WriteContext): Promise<WriteResult> {
  const now = clock();
  const orders = await services.store.orders.paidBy(input.email);
  const withFiles = orders.flatMap((order) => {
    const product = productBySlug(order.product);
    const downloads = product && downloadLinks(product, order.id, now, settings.downloads);
    return product && downloads ? [{ id: order.id, title: product.title, downloads }] : [];
  });
  const paidWith = orders[0]?.email;
  const mails = paidWith && withFiles.length > 0 ? [purchasesAgainMail({ address: paidWith }, withFiles)] : [];
  if (await services.store.orders.claimResend({ email: input.email, now, cooldownMs: RESEND_COOLDOWN_MS, mails })) {
    if (mails.length > 0) services.mail.sendQueued();
  }
  return accepted;
}

export const downloadsResendRoute = defineWriteRoute({
  route: writeRouteAddresses.downloadsResend,
  handle: { schema, honeypot: () => accepted, action: resendPurchases },
  docs: { summary: 'Mail fresh download links for everything an address bought (the same answer for any address).' },
});
