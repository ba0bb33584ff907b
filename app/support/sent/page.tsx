import Link from 'next/link';

export const metadata = { title: 'Message sent', description: 'Your support message was received.', robots: { index: false } };

export default function SupportSent() {
  return (
    <>
      <h1>Message sent</h1>
      <p>Thank you. Your message is stored and a receipt is on its way to your inbox; the answer will come by email.</p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
