/** The typed in-process events, under the path src/webhooks still imports them by; they are src/in-process-events/'s. */
export { OnInProcessEvent } from '../in-process-events/in-process-events';
