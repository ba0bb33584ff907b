/** RFC 8288 Link header values. */
export function linkHeader(url: string, rel: string, type?: string): string {
  return `<${url}>; rel="${rel}"${type ? `; type="${type}"` : ''}`;
}
