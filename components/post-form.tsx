'use client';

import { useId, useState, type FormEvent } from 'react';

export type Field = {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'textarea';
  required?: boolean;
  autoComplete?: string;
  maxLength?: number;
};

type State = { kind: 'idle' } | { kind: 'sending' } | { kind: 'done'; message: string } | { kind: 'failed'; message: string; errors: Record<string, string> };

type Problem = { detail?: string; errors?: { path: string; message: string }[] };

/**
 * A form that works without JavaScript (a plain POST, answered with a 303 to a
 * result page) and, with it, posts JSON and shows field errors inline, the wait
 * after a 429, and the success message in place.
 */
export function PostForm({ action, fields, submitLabel, className }: { action: string; fields: Field[]; submitLabel: string; className?: string }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const id = useId();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body: Record<string, string> = {};
    for (const [name, value] of new FormData(event.currentTarget)) if (typeof value === 'string' && value !== '') body[name] = value;
    setState({ kind: 'sending' });
    try {
      const response = await fetch(action, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const payload = (await response.json().catch(() => ({}))) as Problem & { message?: string };
      if (response.ok) {
        setState({ kind: 'done', message: payload.message ?? 'Done.' });
        return;
      }
      const errors = Object.fromEntries((payload.errors ?? []).map((error) => [error.path, error.message]));
      setState({ kind: 'failed', message: payload.detail ?? `Something went wrong (${response.status}).`, errors });
    } catch {
      setState({ kind: 'failed', message: 'The site could not be reached. Check your connection and try again.', errors: {} });
    }
  }

  const errors = state.kind === 'failed' ? state.errors : {};
  if (state.kind === 'done') {
    return (
      <p className="form-status form-success" role="status">
        {state.message}
      </p>
    );
  }
  return (
    <form method="post" action={action} onSubmit={onSubmit} className={className ?? 'post-form'} noValidate>
      {fields.map((field) => {
        const fieldId = `${id}-${field.name}`;
        const error = errors[field.name];
        const common = {
          id: fieldId,
          name: field.name,
          required: field.required,
          autoComplete: field.autoComplete,
          maxLength: field.maxLength,
          'aria-invalid': error ? true : undefined,
          'aria-describedby': error ? `${fieldId}-error` : undefined,
        };
        return (
          <div className="field" key={field.name}>
            <label htmlFor={fieldId}>
              {field.label}
              {field.required ? '' : ' (optional)'}
            </label>
            {field.type === 'textarea' ? <textarea rows={6} {...common} /> : <input type={field.type ?? 'text'} {...common} />}
            {error && (
              <p className="field-error" id={`${fieldId}-error`}>
                {field.label} {error}.
              </p>
            )}
          </div>
        );
      })}
      {/* Hidden from people; bots fill it in and are answered as if accepted. */}
      <div className="honeypot" aria-hidden="true">
        <label htmlFor={`${id}-website`}>Leave this field empty</label>
        <input id={`${id}-website`} type="text" name="website" tabIndex={-1} autoComplete="off" />
      </div>
      <button type="submit" className="button" disabled={state.kind === 'sending'}>
        {state.kind === 'sending' ? 'Sending…' : submitLabel}
      </button>
      <p className="form-status" role="status" aria-live="polite">
        {state.kind === 'failed' ? state.message : ''}
      </p>
    </form>
  );
}
