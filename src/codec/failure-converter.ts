/**
 * The failure converter of an encrypting worker: it moves a failure's message and stack trace into
 * an encoded payload (`encodeCommonAttributes`), so the codec encrypts them like any other payload
 * and the history keeps only "Encoded failure". The SDK loads this module by path, in the worker
 * and inside the workflow bundle (a failure converter runs in the sandbox; codecs do not), so it
 * imports nothing but `@temporalio/common`.
 */
import { DefaultFailureConverter } from '@temporalio/common';

/** Loaded by the SDK through `failureConverterPath`. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
