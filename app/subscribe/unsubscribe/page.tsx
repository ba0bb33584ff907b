import Link from 'next/link';
import { unsubscribe } from '@/lib/forms/subscribe';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Unsubscribe', description: 'Ends a newsletter subscription.', robots: { index: false } };

export default async function UnsubscribePage({ searchParams }: PageProps<'/subscribe/unsubscribe'>) {
  const { token } = await searchParams;
  const subscriber = typeof token === 'string' && token.length <= 200 ? await unsubscribe(token) : undefined;
  return subscriber ? (
    <>
      <h1>Unsubscribed</h1>
      <p>{subscriber.email} will get no more email from this site.</p>
    </>
  ) : (
    <>
      <h1>This link does not work</h1>
      <p>It is not an unsubscribe link of this site.</p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
