import { PostForm } from '@/components/post-form';
import { pageFacts } from '@/lib/feeds/page-markdown';
import { pageMetadata } from '@/lib/seo';
import { supportRoute } from '@/lib/write-routes/support';

export function generateMetadata() {
  const { title, description } = pageFacts.support();
  return pageMetadata({ title, description, path: '/support' });
}

export default function SupportPage() {
  return (
    <>
      <h1>{pageFacts.support().title}</h1>
      <p>{pageFacts.support().intro}</p>
      <PostForm
        action={supportRoute.path}
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
