/**
 * `countTokens` as `@anthropic-ai/tokenizer` defines it (NFKC, then every special token allowed),
 * on one tokenizer for the whole run: the package builds a new tokenizer per call, which costs
 * tens of milliseconds (hundreds on a busy machine), and a paging test counts hundreds of replies.
 */
import { getTokenizer } from "@anthropic-ai/tokenizer";

let tokenizer: ReturnType<typeof getTokenizer> | undefined;

export function countTokens(text: string): number {
  tokenizer ??= getTokenizer();
  return tokenizer.encode(text.normalize("NFKC"), "all").length;
}
