/**
 * Signal and query definitions of the troupe run workflow (SPEC §7, §8). Their names are part of the
 * CLI contract; the client imports these definitions so both sides agree.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { RunStatusView } from '../core/ending/result';
import type { TranscriptStep } from '../core/state/state';

/** Workflow type name, as registered by the worker. */
export const WORKFLOW_TYPE = 'troupeRun';

export const pauseSignal = defineSignal<[unknown?]>('pause');
export const resumeSignal = defineSignal<[unknown?]>('resume');
export const approveSignal = defineSignal<[unknown?]>('approve');
export const rejectSignal = defineSignal<[unknown?]>('reject');
export const answerSignal = defineSignal<[unknown?]>('answer');
export const messageSignal = defineSignal<[unknown?]>('message');
export const signalSignal = defineSignal<[unknown?]>('signal');
export const stopSignal = defineSignal<[unknown?]>('stop');

export const statusQuery = defineQuery<RunStatusView>('status');
export const transcriptQuery = defineQuery<TranscriptStep[]>('transcript');
