import Link from 'next/link';
import { confirmSubscription } from '@/lib/forms/subscribe';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Confirm subscription', description: 'Confirms a newsletter subscription.', robots: { index: false } };

export default async function ConfirmPage({ searchParams }: PageProps<'/subscribe/confirm'>) {
  const { token } = await searchParams;
  const subscriber = typeof token === 'string' && token.length <= 200 ? await confirmSubscription(token) : undefined;
  return subscriber ? (
    <>
      <h1>Subscription confirmed</h1>
      <p>New posts will arrive at {subscriber.email}. Every message has a link to unsubscribe.</p>
      <p>
        <Link href="/blog">Read the latest posts</Link>
      </p>
    </>
  ) : (
    <>
      <h1>This link does not work</h1>
      <p>It was already used, or it is not a confirmation link. If you are not subscribed yet, subscribe again to get a new one.</p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
