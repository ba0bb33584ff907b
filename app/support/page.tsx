import { PostForm } from '@/components/post-form';
import { site } from '@/lib/content';
import { pageMetadata } from '@/lib/seo';

export function generateMetadata() {
  return pageMetadata({ title: 'Support', description: `Write to ${site().name}: questions about the training, the bundles, the book or a post.`, path: '/support' });
}

export default function SupportPage() {
  return (
    <>
      <h1>Support</h1>
      <p>Questions about the training, a bundle, the book or a post? Write here: the message is kept and you get a receipt by email, then an answer.</p>
      <PostForm
        action="/api/support"
        submitLabel="Send message"
        fields={[
          { name: 'name', label: 'Name', required: true, autoComplete: 'name', maxLength: 100 },
          { name: 'email', label: 'Email', type: 'email', required: true, autoComplete: 'email', maxLength: 254 },
          { name: 'subject', label: 'Subject', required: true, maxLength: 150 },
          { name: 'message', label: 'Message', type: 'textarea', required: true, maxLength: 5000 },
        ]}
      />
    </>
  );
}
