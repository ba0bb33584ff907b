import Link from 'next/link';

export const metadata = { title: 'Check your inbox', description: 'Fresh download links are on their way.', robots: { index: false } };

export default function DownloadsSent() {
  return (
    <>
      <h1>Check your inbox</h1>
      <p>
        If that address bought something here, a mail with fresh download links is on its way to it. Nothing arrived within a few minutes? Look in the spam
        folder, or write to us through the <Link href="/support">support page</Link>.
      </p>
    </>
  );
}
