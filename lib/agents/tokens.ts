/**
 * How many tokens a text is, roughly, for `X-Markdown-Tokens` (as Cloudflare's Markdown for Agents
 * sends it): its characters divided by four, rounded up. That is the usual rule of thumb for
 * English with current tokenizers (OpenAI's o200k_base gives about 4 characters a token on prose;
 * markdown syntax and code make it somewhat more tokens). An agent budgets with it before it reads;
 * no tokenizer runs on the server. tests/contract/markdown.test.ts holds it to within a third of
 * o200k_base's count on every post of the fixture site.
 */
export const CHARACTERS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}
