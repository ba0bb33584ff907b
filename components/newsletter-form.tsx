import { PostForm } from './post-form';
import { subscribeRoute } from '@/lib/write-routes/subscribe';

export function NewsletterForm() {
  return (
    <section className="newsletter" aria-labelledby="newsletter-title">
      <h2 id="newsletter-title">Get new posts by email</h2>
      <p>One email per new post. Confirm by the link we send; unsubscribe from any message.</p>
      <PostForm
        action={subscribeRoute.path}
        submitLabel="Subscribe"
        className="post-form newsletter-form"
        fields={[
          { name: 'email', label: 'Email', type: 'email', required: true, autoComplete: 'email', maxLength: 254 },
          { name: 'name', label: 'Name', autoComplete: 'name', maxLength: 100 },
        ]}
      />
    </section>
  );
}
