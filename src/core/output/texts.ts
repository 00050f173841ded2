/**
 * Every text of the output check (retry prompts, error lines, schema errors), in one place so tests pin them.
 */

export const OUTPUT_TEXTS = {
  /** Output-check texts (retry prompt lines, error lines), so tests can pin them. */
  check: {
    noJson: 'No valid JSON found in response',
    noFinalResult: 'No final result to check',
    retryHeader: (attempt: number, max: number) =>
      `Your previous response did not match the required output format (attempt ${attempt}/${max}).`,
    errorsHeader: 'Validation errors:',
    reformat: (noun: string) => `Please reformat your response as a valid JSON ${noun} matching this schema:`,
    onlyJson: (noun: string) => `Output ONLY the JSON ${noun}, no additional text.`,
    agentError: (agent: string, error: string) => `${agent}: ${error}`,
  },
  /** Validator texts, so tests can pin them. */
  validator: {
    moreErrors: (n: number) => `… and ${n} more error${n === 1 ? '' : 's'}`,
    schemaError: (message: string) => `Invalid output schema: ${message}`,
    patternTextTooLong: (length: number, limit: number) =>
      ` (the text is ${length} characters long; patterns are tested on at most ${limit})`,
  },
} as const;
