const longDate = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

export function PostDate({ value }: { value: string }) {
  const millis = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  return <time dateTime={value}>{longDate.format(millis)}</time>;
}
