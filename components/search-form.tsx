import { SEARCH_QUERY_MAX_LENGTH } from '@/lib/search/site';

/**
 * A plain GET form to /search: it works without JavaScript, and each one on a
 * page has its own name (`label`) so the search landmarks stay distinct.
 */
export function SearchForm({ id, label, defaultValue, className }: { id: string; label: string; defaultValue?: string; className: string }) {
  return (
    <form action="/search" method="get" role="search" aria-label={label} className={className}>
      <label htmlFor={id} className={className === 'site-search' ? 'visually-hidden' : undefined}>
        {label}
      </label>
      <input id={id} type="search" name="q" defaultValue={defaultValue} maxLength={SEARCH_QUERY_MAX_LENGTH} autoComplete="off" enterKeyHint="search" />
      <button type="submit">Search</button>
    </form>
  );
}
