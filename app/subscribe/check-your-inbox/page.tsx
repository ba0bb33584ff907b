import Link from 'next/link';

export const metadata = { title: 'Check your inbox', description: 'Confirm your subscription by the link in the email.', robots: { index: false } };

export default function CheckYourInbox() {
  return (
    <>
      <h1>Check your inbox</h1>
      <p>If this address is not subscribed yet, an email with a confirmation link is on its way. Your subscription starts when you follow it.</p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
