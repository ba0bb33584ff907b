import Link from 'next/link';
import { unsubscribeRoute } from '@/lib/write-routes/unsubscribe';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Unsubscribe', description: 'Ends a newsletter subscription.', robots: { index: false } };

/** The page behind the unsubscribe link of every newsletter mail: opening it changes nothing; the button unsubscribes. */
export default async function UnsubscribePage({ searchParams }: PageProps<'/subscribe/unsubscribe'>) {
  const { token } = await searchParams;
  return typeof token === 'string' && token.length > 0 && token.length <= 200 ? (
    <>
      <h1>Unsubscribe</h1>
      <p>Stop receiving new posts from this site by email.</p>
      <form method="post" action={unsubscribeRoute.path} className="post-form">
        <input type="hidden" name="token" value={token} />
        <button type="submit" className="button">
          Unsubscribe
        </button>
      </form>
    </>
  ) : (
    <>
      <h1>This link does not work</h1>
      <p>It is not an unsubscribe link of this site. Use the link from one of its emails.</p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
