import Link from 'next/link';

export const metadata = { title: 'Unsubscribed', description: 'Your newsletter subscription has ended.', robots: { index: false } };

export default function Unsubscribed() {
  return (
    <>
      <h1>Unsubscribed</h1>
      <p>This address will get no more newsletter email from this site. Changed your mind? Subscribe again with the form below.</p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
