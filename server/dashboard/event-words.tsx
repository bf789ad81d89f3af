import { EVENT_TYPES, type EventType } from '../store/events';
import type { DashboardText } from './i18n';

// An event as a merchant reads it ("Payment succeeded", "Dispute opened"), linked to its page,
// with its type in the link for developers, who match on the type (and find the link by it).

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);
const isEventType = (type: string): type is EventType => KNOWN.has(type);

/** What an event of `type` says in the text's language; a type the service does not emit reads as itself. */
export const eventWords = (text: DashboardText, type: string): string => (isEventType(type) ? text.t(`ev.says.${type}`) : type);

export function EventLink({ text, event }: { text: DashboardText; event: { id: string; type: string } }) {
  return (
    <>
      <a href={`/dashboard/events/${event.id}/`}>
        {eventWords(text, event.type)} <code class="event-type">{event.type}</code>
      </a>
    </>
  );
}
