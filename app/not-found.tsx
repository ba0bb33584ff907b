import Link from 'next/link';

export const metadata = { title: 'Page not found', description: 'There is no page at this address.' };

export default function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no page at this address. It may have moved, or it was never published.</p>
      <p>
        <Link href="/">Go to the home page</Link> or <Link href="/blog">browse every post</Link>.
      </p>
    </>
  );
}
