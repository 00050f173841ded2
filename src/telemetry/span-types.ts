/** The shapes troupe's span code reads (`tracing.ts`, `tracing-sdk.ts`). */
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { TokenCounts } from '../core/conditions/view';

/** A chat-completions request body, as its `chat` span reads it. */
export interface ModelBody {
  model: string;
  max_tokens?: number | null;
  temperature?: number | null;
  /** Read only when content is captured. */
  messages?: unknown;
}

/** What a model request returns, as its `chat` span reads it. */
export interface ModelResponse {
  completion: Pick<ChatCompletion, 'id' | 'model' | 'choices'>;
  usage: TokenCounts;
}

/** How a run ended, for its root span. */
export interface RunSpanResult {
  workflowId?: string;
  status?: string;
  reason?: string;
}

/**
 * A run's root span on the client: run its start `within` it, follow the run `untraced` (a
 * follower's queries, one per change, are not the run's work and would each be a trace of their
 * own), and `end` it when the run ends or is left.
 */
export interface RunSpan {
  within<T>(fn: () => Promise<T>): Promise<T>;
  untraced<T>(fn: () => Promise<T>): Promise<T>;
  end(result?: RunSpanResult): void;
}
