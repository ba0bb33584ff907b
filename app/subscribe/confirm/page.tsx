import Link from 'next/link';
import { services } from '@/lib/runtime';
import { CONFIRMATION_DAYS, confirmationState } from '@/lib/subscribers/links';
import { subscribeConfirmRoute } from '@/lib/write-routes/subscribe-confirm';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Confirm subscription', description: 'Confirms a newsletter subscription.', robots: { index: false } };

/**
 * The page behind the link in a confirmation mail. Opening it changes nothing
 * (mail scanners open links); the button posts the token, and that confirms.
 */
export default async function ConfirmPage({ searchParams }: PageProps<'/subscribe/confirm'>) {
  const { token } = await searchParams;
  const state = typeof token === 'string' && token.length <= 200 ? await confirmationState(services().store.subscribers, token) : undefined;
  if (state === 'pending') {
    return (
      <>
        <h1>Confirm your subscription</h1>
        <p>One more step: confirm, and new posts will arrive by email. Every message has a link to unsubscribe.</p>
        <form method="post" action={subscribeConfirmRoute.path} className="post-form">
          <input type="hidden" name="token" value={token} />
          <button type="submit" className="button">
            Confirm my subscription
          </button>
        </form>
      </>
    );
  }
  if (state === 'expired') {
    return (
      <>
        <h1>This link has expired</h1>
        <p>
          Confirmation links work for {CONFIRMATION_DAYS} days, and this one is older. Nothing was changed: subscribe again with the form below to get a new
          link.
        </p>
        <p>
          <Link href="/">Back to the home page</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>This link does not work</h1>
      <p>It was already used, or it is not a confirmation link. If you are not subscribed yet, subscribe again to get a new one.</p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
