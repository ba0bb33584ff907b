import { PostForm } from '@/components/post-form';
import { settings } from '@/lib/settings';
import { pageMetadata } from '@/lib/seo';
import { downloadsResendRoute } from '@/lib/write-routes/downloads-resend';

export function generateMetadata() {
  return pageMetadata({
    title: 'Send me my purchases again',
    description: 'Fresh download links for everything bought with an address, mailed to it.',
    path: '/downloads',
  });
}

export default function DownloadsPage() {
  const { linkMs, limit } = settings().downloads;
  return (
    <>
      <h1>Send me my purchases again</h1>
      <p>
        Type the address you paid with. If it bought something here, a mail with fresh download links for all of it goes to that address, and only there. Each
        link works for {Math.round(linkMs / 86_400_000)} days and {limit} downloads.
      </p>
      <PostForm
        action={downloadsResendRoute.path}
        submitLabel="Send my links"
        fields={[{ name: 'email', label: 'Email you paid with', type: 'email', required: true, autoComplete: 'email', maxLength: 254 }]}
      />
    </>
  );
}
