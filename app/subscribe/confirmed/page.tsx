import Link from 'next/link';

export const metadata = { title: 'Subscription confirmed', description: 'Your newsletter subscription is confirmed.', robots: { index: false } };

export default function SubscriptionConfirmed() {
  return (
    <>
      <h1>Subscription confirmed</h1>
      <p>New posts will arrive by email. Every message has a link to unsubscribe.</p>
      <p>
        <Link href="/blog">Read the latest posts</Link>
      </p>
    </>
  );
}
